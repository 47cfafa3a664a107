import { expect } from "vitest";
import { defineCase } from "../case.js";
import { isoAt, sessionRecord, uid } from "../fixtures.js";

export const sessionCases = [
  defineCase(
    "sessions/create-get",
    "create is create-only and get returns what was stored",
    async (stores) => {
      const record = sessionRecord({
        orgId: uid("org"),
        tenantId: "t1",
        title: "first",
        metadata: { a: [1, "x"] },
      });
      expect(await stores.sessions.get(record.id)).toBeNull();
      expect(await stores.sessions.create(record)).toBe(true);
      expect(await stores.sessions.get(record.id)).toEqual(record);

      const second = { ...record, userId: uid("user"), title: "second", metadata: { b: 2 } };
      expect(await stores.sessions.create(second)).toBe(false);
      expect(await stores.sessions.get(record.id)).toEqual(record);
      expect(await stores.sessions.get(uid("session"))).toBeNull();
    },
  ),

  defineCase("sessions/copies", "reads and writes never alias caller objects", async (stores) => {
    const record = sessionRecord({ metadata: { nested: { n: 1 } } });
    const expected = structuredClone(record);
    await stores.sessions.create(record);
    (record.metadata.nested as { n: number }).n = 99;
    record.title = "changed after create";

    const read = await stores.sessions.get(record.id);
    expect(read).toEqual(expected);
    (read!.metadata.nested as { n: number }).n = 42;
    read!.userId = "someone-else";
    expect(await stores.sessions.get(record.id)).toEqual(expected);

    const page = await stores.sessions.list({ userId: expected.userId });
    page.items[0]!.metadata.extra = true;
    expect(await stores.sessions.get(record.id)).toEqual(expected);
  }),

  defineCase(
    "sessions/update",
    "update patches title and metadata; owner fields never change",
    async (stores) => {
      const record = sessionRecord({ orgId: uid("org"), parentSessionId: uid("parent"), metadata: { a: 1 } });
      await stores.sessions.create(record);

      const titled = await stores.sessions.update(record.id, { title: "renamed" });
      expect(titled).toEqual({ ...record, title: "renamed" });

      const hostile = {
        metadata: { a: 1, b: 2 },
        userId: "intruder",
        orgId: "intruder-org",
        flowId: "other-flow",
        rootSessionId: "other-root",
        createdAt: isoAt(0),
      } as unknown as { metadata: { a: number; b: number } };
      const updated = await stores.sessions.update(record.id, hostile);
      const expected = { ...record, title: "renamed", metadata: { a: 1, b: 2 } };
      expect(updated).toEqual(expected);
      expect(await stores.sessions.get(record.id)).toEqual(expected);

      expect(await stores.sessions.update(uid("session"), { title: "x" })).toBeNull();
    },
  ),

  defineCase(
    "sessions/list-by-owner",
    "list by user or org, newest first, with flow filter and paging",
    async (stores) => {
      const userId = uid("user");
      const orgId = uid("org");
      const base = Date.parse("2024-03-01T00:00:00.000Z");
      const records = [0, 1, 2, 3, 4].map((i) =>
        sessionRecord({
          userId,
          flowId: i % 2 === 0 ? "flow-even" : "flow-odd",
          createdAt: isoAt(base, i * 1000),
        }),
      );
      const inOrg = sessionRecord({ userId: uid("user"), orgId, createdAt: isoAt(base, 10_000) });
      const otherUser = sessionRecord({ createdAt: isoAt(base, 20_000) });
      // Created out of order: the store sorts, not the insertion sequence.
      for (const record of [
        records[3]!,
        records[0]!,
        records[4]!,
        records[1]!,
        records[2]!,
        inOrg,
        otherUser,
      ]) {
        expect(await stores.sessions.create(record)).toBe(true);
      }
      const newestFirst = [...records].reverse();

      const all = await stores.sessions.list({ userId });
      expect(all).toEqual({ items: newestFirst, total: 5 });

      const page = await stores.sessions.list({ userId, offset: 1, limit: 2 });
      expect(page).toEqual({ items: newestFirst.slice(1, 3), total: 5 });
      expect(await stores.sessions.list({ userId, offset: 10 })).toEqual({ items: [], total: 5 });

      const even = await stores.sessions.list({ userId, flowIds: ["flow-even"] });
      expect(even).toEqual({ items: [records[4], records[2], records[0]], total: 3 });
      const both = await stores.sessions.list({ userId, flowIds: ["flow-even", "flow-odd"], limit: 1 });
      expect(both).toEqual({ items: [records[4]], total: 5 });
      expect(await stores.sessions.list({ userId, flowIds: ["no-such-flow"] })).toEqual({
        items: [],
        total: 0,
      });

      expect(await stores.sessions.list({ orgId })).toEqual({ items: [inOrg], total: 1 });
      expect(await stores.sessions.list({ userId, orgId })).toEqual({ items: [], total: 0 });
    },
  ),

  defineCase(
    "sessions/list-ties",
    "sessions created at the same instant page consistently",
    async (stores) => {
      const userId = uid("user");
      const createdAt = isoAt(Date.parse("2024-04-01T00:00:00.000Z"));
      const records = [0, 1, 2, 3].map(() => sessionRecord({ userId, createdAt }));
      for (const record of records) await stores.sessions.create(record);

      const all = await stores.sessions.list({ userId });
      expect(all.total).toBe(4);
      expect([...all.items].sort((a, b) => (a.id < b.id ? -1 : 1))).toEqual(
        [...records].sort((a, b) => (a.id < b.id ? -1 : 1)),
      );
      const first = await stores.sessions.list({ userId, limit: 2 });
      const second = await stores.sessions.list({ userId, offset: 2, limit: 2 });
      expect([...first.items, ...second.items]).toEqual(all.items);
    },
  ),

  defineCase(
    "sessions/list-children",
    "direct children of a parent, oldest first, narrowed by owner",
    async (stores) => {
      const userId = uid("user");
      const orgId = uid("org");
      const base = Date.parse("2024-05-01T00:00:00.000Z");
      const parent = sessionRecord({ userId, orgId, createdAt: isoAt(base) });
      const child = (offset: number, overrides: Parameters<typeof sessionRecord>[0] = {}) =>
        sessionRecord({
          userId,
          orgId,
          parentSessionId: parent.id,
          rootSessionId: parent.id,
          createdAt: isoAt(base, offset),
          ...overrides,
        });
      const late = child(3000);
      const early = child(1000);
      const otherFlow = child(2000, { flowId: "flow-b" });
      const otherUser = child(2500, { userId: uid("user") });
      const otherOrg = child(2600, { orgId: uid("org") });
      const noFlow = child(2700, { flowId: null });
      const grandchild = sessionRecord({
        userId,
        orgId,
        parentSessionId: early.id,
        rootSessionId: parent.id,
        createdAt: isoAt(base, 1500),
      });
      for (const record of [parent, late, early, otherFlow, otherUser, otherOrg, noFlow, grandchild]) {
        await stores.sessions.create(record);
      }

      expect(await stores.sessions.listChildren(parent.id, { userId, orgId, flowId: "flow-a" })).toEqual([
        early,
        late,
      ]);
      expect(await stores.sessions.listChildren(parent.id, { userId, orgId, flowId: null })).toEqual([
        noFlow,
      ]);
      expect(await stores.sessions.listChildren(parent.id, { userId: otherUser.userId, orgId })).toEqual([
        otherUser,
      ]);
      expect(await stores.sessions.listChildren(early.id, { userId, orgId, flowId: "flow-a" })).toEqual([
        grandchild,
      ]);
      expect(await stores.sessions.listChildren(uid("session"), { userId })).toEqual([]);
    },
  ),

  defineCase("sessions/lineage-root", "a session keeps its lineage root at any depth", async (stores) => {
    const root = sessionRecord();
    const child = sessionRecord({ userId: root.userId, parentSessionId: root.id, rootSessionId: root.id });
    const grandchild = sessionRecord({
      userId: root.userId,
      parentSessionId: child.id,
      rootSessionId: root.id,
    });
    for (const record of [root, child, grandchild]) await stores.sessions.create(record);

    expect((await stores.sessions.get(root.id))?.rootSessionId).toBe(root.id);
    expect((await stores.sessions.get(root.id))?.parentSessionId).toBeUndefined();
    expect(await stores.sessions.get(grandchild.id)).toMatchObject({
      parentSessionId: child.id,
      rootSessionId: root.id,
    });
  }),
] as const;
