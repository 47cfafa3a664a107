import type { FlowStores, SessionListPosition, SessionRecord } from "@flowrt/core";
import { expect } from "vitest";
import { defineCase } from "../case.js";
import { isoAt, sessionRecord, uid } from "../fixtures.js";

/** The contract's listing order: `createdAt` descending, then `id` descending. */
const newestFirst = (a: SessionRecord, b: SessionRecord) =>
  a.createdAt === b.createdAt ? (a.id < b.id ? 1 : a.id > b.id ? -1 : 0) : a.createdAt < b.createdAt ? 1 : -1;

const positionOf = (session: SessionRecord): SessionListPosition => ({
  createdAt: session.createdAt,
  id: session.id,
});

/** Every page of a user's sessions by keyset, `limit` at a time; checks `total` on each page. */
async function pagesByKeyset(
  stores: FlowStores,
  query: { userId: string; flowIds?: string[] },
  limit: number,
  total: number,
): Promise<string[][]> {
  const pages: string[][] = [];
  let after: SessionListPosition | undefined;
  for (let round = 0; round < 100; round++) {
    const page = await stores.sessions.list({ ...query, limit, ...(after ? { after } : {}) });
    expect(page.total).toBe(total);
    expect(page.items.length).toBeLessThanOrEqual(limit);
    if (page.items.length === 0) return pages;
    pages.push(page.items.map((s) => s.id));
    after = positionOf(page.items[page.items.length - 1]!);
  }
  throw new Error("keyset paging never ended");
}

export const sessionLifecycleCases = [
  defineCase(
    "sessions/patch",
    "update merges metadataPatch one level deep (null removes a key), replaces metadata, removes a null title, and never changes owner fields",
    async (stores) => {
      const record = sessionRecord({
        orgId: uid("org"),
        tenantId: "t1",
        parentSessionId: uid("parent"),
        title: "first",
        metadata: { keep: 1, drop: "x", nested: { a: 1, b: 2 }, list: [1, 2] },
      });
      await stores.sessions.create(record);

      const merged = await stores.sessions.update(record.id, {
        metadataPatch: { drop: null, nested: { c: 3 }, added: { deep: [true] }, absent: null },
      });
      const expected: SessionRecord = {
        ...record,
        metadata: { keep: 1, nested: { c: 3 }, list: [1, 2], added: { deep: [true] } },
      };
      expect(merged).toEqual(expected);
      expect(await stores.sessions.get(record.id)).toEqual(expected);

      // No title in the patch keeps it; `null` removes it (the field is then absent, not null).
      expect(await stores.sessions.update(record.id, { metadataPatch: {} })).toEqual(expected);
      const untitled = await stores.sessions.update(record.id, { title: null });
      const { title: _removed, ...withoutTitle } = expected;
      expect(untitled).toEqual(withoutTitle);
      expect(untitled).not.toHaveProperty("title");
      expect(await stores.sessions.get(record.id)).toEqual(withoutTitle);
      expect(await stores.sessions.update(record.id, { title: "again" })).toEqual({
        ...withoutTitle,
        title: "again",
      });

      // `metadata` replaces the whole object.
      const replaced = await stores.sessions.update(record.id, { metadata: { only: true } });
      expect(replaced?.metadata).toEqual({ only: true });

      const hostile = {
        metadataPatch: { z: 1 },
        id: uid("session"),
        userId: "intruder",
        orgId: "intruder-org",
        tenantId: "intruder-tenant",
        flowId: "other-flow",
        flowKind: "other-kind",
        parentSessionId: "other-parent",
        rootSessionId: "other-root",
        createdAt: isoAt(0),
      } as unknown as { metadataPatch: { z: number } };
      const owned = await stores.sessions.update(record.id, hostile);
      const expectedOwned = { ...withoutTitle, title: "again", metadata: { only: true, z: 1 } };
      expect(owned).toEqual(expectedOwned);
      expect(await stores.sessions.get(record.id)).toEqual(expectedOwned);
      expect(await stores.sessions.get((hostile as unknown as { id: string }).id)).toBeNull();

      const missing = uid("session");
      expect(await stores.sessions.update(missing, { metadataPatch: { a: 1 } })).toBeNull();
      expect(await stores.sessions.update(missing, { title: null })).toBeNull();
      expect(await stores.sessions.get(missing)).toBeNull();
    },
  ),

  defineCase(
    "sessions/patch-concurrent",
    "concurrent metadataPatches of different keys all land (across the stores and their peer)",
    async (stores, peer) => {
      const other = peer ? await peer() : stores;
      const record = sessionRecord({ metadata: { base: true } });
      await stores.sessions.create(record);
      const keys = Array.from({ length: 20 }, (_, i) => `k${i}`);
      const results = await Promise.all(
        keys.map((key, i) =>
          (i % 2 === 0 ? stores : other).sessions.update(record.id, { metadataPatch: { [key]: i } }),
        ),
      );
      for (const [i, result] of results.entries()) expect(result?.metadata[keys[i]!]).toBe(i);
      const expected = { base: true, ...Object.fromEntries(keys.map((key, i) => [key, i])) };
      expect((await stores.sessions.get(record.id))?.metadata).toEqual(expected);

      // Removals of different keys race too, with a title change.
      await Promise.all([
        ...keys
          .slice(0, 10)
          .map((key, i) =>
            (i % 2 === 0 ? other : stores).sessions.update(record.id, { metadataPatch: { [key]: null } }),
          ),
        stores.sessions.update(record.id, { title: "raced" }),
      ]);
      const after = await stores.sessions.get(record.id);
      expect(after?.title).toBe("raced");
      expect(after?.metadata).toEqual({
        base: true,
        ...Object.fromEntries(keys.slice(10).map((k, i) => [k, i + 10])),
      });
    },
  ),

  defineCase(
    "sessions/mark-deleting",
    "markDeleting marks a session deleting (idempotent, false when missing): get and listChildren still return it, list leaves it out",
    async (stores) => {
      const userId = uid("user");
      const base = Date.parse("2024-06-01T00:00:00.000Z");
      const parent = sessionRecord({ userId, createdAt: isoAt(base) });
      const child = sessionRecord({
        userId,
        parentSessionId: parent.id,
        rootSessionId: parent.id,
        createdAt: isoAt(base, 1000),
      });
      const sibling = sessionRecord({
        userId,
        parentSessionId: parent.id,
        rootSessionId: parent.id,
        createdAt: isoAt(base, 2000),
      });
      for (const record of [parent, child, sibling]) await stores.sessions.create(record);

      expect(await stores.sessions.markDeleting(uid("session"))).toBe(false);
      expect(await stores.sessions.markDeleting(child.id)).toBe(true);
      expect(await stores.sessions.markDeleting(child.id)).toBe(true);
      expect(await stores.sessions.get(child.id)).toEqual({ ...child, deleting: true });
      expect(await stores.sessions.get(sibling.id)).toEqual(sibling);

      expect(await stores.sessions.list({ userId })).toEqual({ items: [sibling, parent], total: 2 });
      expect(await stores.sessions.list({ userId, offset: 1, limit: 1 })).toEqual({
        items: [parent],
        total: 2,
      });
      expect(await stores.sessions.list({ userId, after: positionOf(sibling) })).toEqual({
        items: [parent],
        total: 2,
      });
      expect(await stores.sessions.listChildren(parent.id, { userId })).toEqual([
        { ...child, deleting: true },
        sibling,
      ]);

      // A marked session can still be patched (the engine refuses it before the store); the mark stays.
      expect(await stores.sessions.update(child.id, { title: "late" })).toEqual({
        ...child,
        title: "late",
        deleting: true,
      });
      expect((await stores.sessions.list({ userId })).total).toBe(2);
    },
  ),

  defineCase(
    "sessions/list-after",
    "list with after pages by keyset (createdAt, then id, descending): every session once, equal timestamps included, total unchanged",
    async (stores) => {
      const userId = uid("user");
      const base = Date.parse("2024-07-01T00:00:00.000Z");
      // Three timestamps, four sessions each: ties must split across pages without loss or repeat.
      const records = Array.from({ length: 12 }, (_, i) =>
        sessionRecord({
          userId,
          flowId: i % 3 === 0 ? "flow-b" : "flow-a",
          createdAt: isoAt(base, Math.floor(i / 4) * 1000),
        }),
      );
      for (const record of [...records].reverse()) await stores.sessions.create(record);
      await stores.sessions.create(sessionRecord({ createdAt: isoAt(base, 500) }));
      const ordered = [...records].sort(newestFirst);

      expect((await stores.sessions.list({ userId })).items).toEqual(ordered);
      for (const limit of [1, 3, 5, 12]) {
        const pages = await pagesByKeyset(stores, { userId }, limit, 12);
        expect(pages.flat()).toEqual(ordered.map((s) => s.id));
      }
      const flowB = ordered.filter((s) => s.flowId === "flow-b");
      expect((await pagesByKeyset(stores, { userId, flowIds: ["flow-b"] }, 2, flowB.length)).flat()).toEqual(
        flowB.map((s) => s.id),
      );

      // After a position inside a tie: only the smaller ids of that instant, then the older ones.
      const tied = ordered[5]!;
      expect(await stores.sessions.list({ userId, after: positionOf(tied) })).toEqual({
        items: ordered.slice(6),
        total: 12,
      });
      // A position no session holds works as well; offset counts from it.
      const between = { createdAt: isoAt(base, 1500), id: "any" };
      expect(await stores.sessions.list({ userId, after: between, offset: 1, limit: 2 })).toEqual({
        items: ordered.slice(5, 7),
        total: 12,
      });
      expect(await stores.sessions.list({ userId, after: positionOf(ordered[11]!) })).toEqual({
        items: [],
        total: 12,
      });
      expect(
        await stores.sessions.list({ userId, after: { createdAt: isoAt(base, 60_000), id: "" }, limit: 1 }),
      ).toEqual({ items: [ordered[0]], total: 12 });
    },
  ),
] as const;
