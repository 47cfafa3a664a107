/**
 * `sessions.list` newest first with keyset positions (`after`), and `markDeleting`: a session being removed is
 * left out of listings and their totals, while `get` and `listChildren` still return it.
 */
import type { SessionRecord } from "@flowrt/core";
import { afterAll, afterEach, beforeEach, describe, expect, it } from "vitest";
import { backends, closeSharedPglite, createTestStoresOn, type TestStores } from "./testing/databases.js";
import { sessionRecord } from "./testing/records.js";

afterAll(() => closeSharedPglite());

/** JavaScript's order for the contract: createdAt descending, then id descending (UTF-16 code units). */
const newestFirst = (a: SessionRecord, b: SessionRecord) =>
  a.createdAt === b.createdAt ? (a.id < b.id ? 1 : -1) : a.createdAt < b.createdAt ? 1 : -1;

describe.each(backends)("session listing (%s)", (on) => {
  let db: TestStores;
  beforeEach(async () => {
    db = await createTestStoresOn(on);
  });
  afterEach(() => db.destroy());

  /** 23 sessions of `user` over 5 instants (ties on createdAt), ids mixing case and punctuation. */
  const seed = async () => {
    const ids = ["a", "B", "b-1", "b1", "Z", "z", "_x", "a.b", "ab", "m", "M", "n-2", "n10", "n2"];
    const sessions: SessionRecord[] = [];
    for (let i = 0; i < 23; i++) {
      const id = `${ids[i % ids.length]}-${Math.floor(i / ids.length)}`;
      sessions.push(
        sessionRecord({ id, userId: "user", createdAt: `2026-01-0${(i % 5) + 1}T00:00:00.000Z` }),
      );
    }
    sessions.push(sessionRecord({ id: "other-user", userId: "other" }));
    for (const session of sessions) await db.stores.sessions.create(session);
    return sessions.filter((s) => s.userId === "user").sort(newestFirst);
  };

  it("pages by keyset cover every session once, in the contract's order, with ties on createdAt", async () => {
    const expected = await seed();
    const seen: SessionRecord[] = [];
    let after: { createdAt: string; id: string } | undefined;
    for (;;) {
      const page = await db.stores.sessions.list({ userId: "user", limit: 4, ...(after ? { after } : {}) });
      expect(page.total).toBe(23);
      seen.push(...page.items);
      const last = page.items.at(-1);
      if (page.items.length < 4 || !last) break;
      after = { createdAt: last.createdAt, id: last.id };
    }
    expect(seen.map((s) => s.id)).toEqual(expected.map((s) => s.id));
    // Offset pages agree with the keyset pages.
    const all = await db.stores.sessions.list({ userId: "user" });
    expect(all.items.map((s) => s.id)).toEqual(expected.map((s) => s.id));
  });

  it("after a position with no session, starts right after it; offset counts from there", async () => {
    const expected = await seed();
    const at = { createdAt: "2026-01-03T00:00:00.000Z", id: "b" };
    const rest = expected.filter((s) => newestFirst(s, { ...s, ...at }) > 0);
    const page = await db.stores.sessions.list({ userId: "user", after: at, offset: 2, limit: 3 });
    expect(page.items.map((s) => s.id)).toEqual(rest.slice(2, 5).map((s) => s.id));
    expect(page.total).toBe(23);
    const end = await db.stores.sessions.list({ userId: "user", after: { createdAt: "0", id: "" } });
    expect(end.items).toEqual([]);
  });

  it("narrows keyset pages by org and flow, and lists every user without a user filter", async () => {
    await db.stores.sessions.create(
      sessionRecord({ id: "s1", orgId: "o1", createdAt: "2026-01-01T00:00:01Z" }),
    );
    await db.stores.sessions.create(
      sessionRecord({ id: "s2", orgId: "o2", createdAt: "2026-01-01T00:00:02Z" }),
    );
    await db.stores.sessions.create(
      sessionRecord({ id: "s3", orgId: "o1", flowId: "g", userId: "u2", createdAt: "2026-01-01T00:00:03Z" }),
    );
    const after = { createdAt: "2026-01-01T00:00:09Z", id: "x" };
    expect((await db.stores.sessions.list({ orgId: "o1", after })).items.map((s) => s.id)).toEqual([
      "s3",
      "s1",
    ]);
    expect((await db.stores.sessions.list({ flowIds: ["g"], after })).items.map((s) => s.id)).toEqual(["s3"]);
    const everyone = await db.stores.sessions.list({
      after: { createdAt: "2026-01-01T00:00:03Z", id: "s3" },
    });
    expect(everyone.items.map((s) => s.id)).toEqual(["s2", "s1"]);
    expect(everyone.total).toBe(3);
  });

  it("refuses a malformed position with invalid-request", async () => {
    await expect(
      db.stores.sessions.list({ after: { createdAt: 1, id: "x" } as never }),
    ).rejects.toMatchObject({
      code: "invalid-request",
    });
  });

  it("markDeleting: false when missing; idempotent; the session leaves listings but not get or listChildren", async () => {
    const s = db.stores.sessions;
    expect(await s.markDeleting("missing")).toBe(false);
    expect(await s.get("missing")).toBeNull();
    const parent = sessionRecord({ id: "parent", createdAt: "2026-01-01T00:00:00.000Z" });
    const child = sessionRecord({
      id: "child",
      parentSessionId: "parent",
      rootSessionId: "parent",
      createdAt: "2026-01-02T00:00:00.000Z",
    });
    const sibling = sessionRecord({
      id: "sibling",
      parentSessionId: "parent",
      rootSessionId: "parent",
      createdAt: "2026-01-03T00:00:00.000Z",
    });
    for (const session of [parent, child, sibling]) await s.create(session);
    expect(await s.markDeleting("child")).toBe(true);
    expect(await s.markDeleting("child")).toBe(true);
    expect(await s.get("child")).toEqual({ ...child, deleting: true });
    expect(await s.get("parent")).toEqual(parent);
    const page = await s.list({ userId: "user" });
    expect(page.items.map((x) => x.id)).toEqual(["sibling", "parent"]);
    expect(page.total).toBe(2);
    expect(
      (await s.list({ after: { createdAt: "2026-01-09T00:00:00.000Z", id: "" } })).items.map((x) => x.id),
    ).toEqual(["sibling", "parent"]);
    expect((await s.listChildren("parent", { userId: "user" })).map((x) => [x.id, x.deleting])).toEqual([
      ["child", true],
      ["sibling", undefined],
    ]);
    // An update keeps the mark.
    expect(await s.update("child", { title: "t" })).toEqual({ ...child, title: "t", deleting: true });
  });
});
