/**
 * `sessions.remove`: one transaction takes the session's requests (events, seq counters, active entries), its
 * session-scope state, resources (tombstones included), content and counters in every bucket, then the record.
 */
import type { ScopeAddress } from "@flowrt/core";
import { afterAll, afterEach, beforeEach, describe, expect, it } from "vitest";
import { tableNames } from "./sql.js";
import { backends, closeSharedPglite, createTestStoresOn, type TestStores } from "./testing/databases.js";
import { requestRecord, sessionRecord } from "./testing/records.js";

afterAll(() => closeSharedPglite());

const bucketA = (scopeId: string): ScopeAddress => ({ scope: "session", scopeId, bucket: "a" });
const bucketB = (scopeId: string): ScopeAddress => ({ scope: "session", scopeId, bucket: "b" });

describe.each(backends)("session removal (%s)", (on) => {
  let db: TestStores;
  beforeEach(async () => {
    db = await createTestStoresOn(on);
  });
  afterEach(() => db.destroy());

  /** A session with 2 requests (3 and 1 events, one active), state and resources in two buckets. */
  const fill = async (id: string, extra: { parent?: string } = {}) => {
    const { sessions, requests, scopeState, resources } = db.stores;
    await sessions.create(
      sessionRecord({
        id,
        ...(extra.parent ? { parentSessionId: extra.parent, rootSessionId: extra.parent } : {}),
      }),
    );
    const first = requestRecord({ id: `${id}-r1`, sessionId: id, status: "running" });
    const second = requestRecord({ id: `${id}-r2`, sessionId: id });
    await requests.create(first);
    await requests.create(second);
    for (let i = 0; i < 3; i++)
      await requests.appendEvent({ requestId: first.id, type: "t", at: first.createdAt, data: { i } });
    await requests.appendEvent({
      requestId: second.id,
      type: "request.completed",
      at: second.createdAt,
      data: {},
    });
    await requests.markActive({
      requestId: first.id,
      sessionId: id,
      flowId: "flow",
      userId: "user",
      action: "act",
      startedAt: first.createdAt,
    });
    for (const address of [bucketA(id), bucketB(id)]) {
      await scopeState.put(address, { n: 1 }, { type: "any" });
      await resources.putState(address, "items/x", { v: 1 }, { type: "absent" });
      await resources.putContent(address, "items/x", "body");
    }
    // A tombstone and a live key with content in bucket a only.
    await resources.putState(bucketA(id), "items/gone", {}, { type: "absent" });
    await resources.deleteState(bucketA(id), "items/gone", { type: "any" });
    await resources.putState(bucketA(id), "items/deep/y", {}, { type: "absent" });
  };

  const rowsOf = async (id: string) => {
    const n = tableNames(db.schema);
    const count = async (table: string, where: string) =>
      Number(
        (await db.query<{ c: unknown }>(`SELECT count(*) AS c FROM ${table} WHERE ${where}`, [id]))[0]?.c,
      );
    return {
      session: await count(n.sessions, "id = $1"),
      requests: await count(n.requests, "session_id = $1"),
      events: await count(n.events, `request_id IN ($1 || '-r1', $1 || '-r2')`),
      seqs: await count(n.eventSeq, `request_id IN ($1 || '-r1', $1 || '-r2')`),
      active: await count(n.active, "session_id = $1"),
      states: await count(n.scopeState, "scope = 'session' AND scope_id = $1"),
      resources: await count(n.resources, "scope = 'session' AND scope_id = $1"),
      contents: await count(n.contents, "scope = 'session' AND scope_id = $1"),
      counters: await count(n.counts, "scope = 'session' AND scope_id = $1"),
    };
  };

  it("removes everything stored under the session, counts it, and touches no other session or scope", async () => {
    const { sessions, requests, scopeState, resources } = db.stores;
    await fill("s1");
    await fill("s2");
    await fill("child", { parent: "s1" });
    const user: ScopeAddress = { scope: "user", scopeId: "user", bucket: "a" };
    await scopeState.put(user, { u: 1 }, { type: "any" });
    await resources.putState(user, "items/x", {}, { type: "absent" });
    const others = { s2: await rowsOf("s2"), child: await rowsOf("child") };
    expect((await rowsOf("s1")).counters).toBeGreaterThan(0);

    expect(await sessions.remove("s1")).toEqual({
      requests: 2,
      events: 4,
      states: 2,
      resources: 4,
      contents: 2,
    });
    expect(await rowsOf("s1")).toEqual({
      session: 0,
      requests: 0,
      events: 0,
      seqs: 0,
      active: 0,
      states: 0,
      resources: 0,
      contents: 0,
      counters: 0,
    });
    expect(await sessions.get("s1")).toBeNull();
    expect(await requests.get("s1-r1")).toBeNull();
    expect(await requests.readEvents("s1-r1")).toEqual([]);
    expect((await requests.listActive({})).map((entry) => entry.requestId).sort()).toEqual([
      "child-r1",
      "s2-r1",
    ]);
    expect(await resources.count(bucketA("s1"))).toBe(0);
    expect(await resources.count(bucketA("s1"), "items/", { leaf: true })).toBe(0);
    // Children and everyone else untouched.
    expect({ s2: await rowsOf("s2"), child: await rowsOf("child") }).toEqual(others);
    expect((await sessions.get("child"))?.parentSessionId).toBe("s1");
    expect(await scopeState.get(user)).toMatchObject({ value: { u: 1 } });
    expect(await resources.count(user, "items/", { leaf: true })).toBe(1);
    expect(await resources.count(bucketA("s2"), "items/", { leaf: true })).toBe(1);
    // A second call finds nothing.
    expect(await sessions.remove("s1")).toBeNull();
  });

  it("removes a session marked deleting, and a session with nothing under it", async () => {
    await db.stores.sessions.create(sessionRecord({ id: "bare" }));
    expect(await db.stores.sessions.markDeleting("bare")).toBe(true);
    expect(await db.stores.sessions.remove("bare")).toEqual({
      requests: 0,
      events: 0,
      states: 0,
      resources: 0,
      contents: 0,
    });
    expect(await db.stores.sessions.get("bare")).toBeNull();
  });

  it("answers null for a missing session and removes nothing, not even rows naming it", async () => {
    await db.stores.requests.create(requestRecord({ id: "orphan", sessionId: "ghost" }));
    await db.stores.scopeState.put(bucketA("ghost"), { n: 1 }, { type: "any" });
    expect(await db.stores.sessions.remove("ghost")).toBeNull();
    expect(await db.stores.requests.get("orphan")).not.toBeNull();
    expect(await db.stores.scopeState.get(bucketA("ghost"))).not.toBeNull();
  });

  it("two removals of one session at once: one removes, the other finds nothing", async () => {
    await fill("s1");
    const peer = await createTestStoresOn(on, { schema: db.schema });
    try {
      const results = await Promise.all([db.stores.sessions.remove("s1"), peer.stores.sessions.remove("s1")]);
      expect(results.filter((r) => r === null)).toHaveLength(1);
      expect(results.find((r) => r !== null)).toEqual({
        requests: 2,
        events: 4,
        states: 2,
        resources: 4,
        contents: 2,
      });
    } finally {
      await peer.destroy();
    }
  });

  it("a failure part-way leaves everything in place (one transaction)", async () => {
    await fill("s1");
    const before = await rowsOf("s1");
    const n = tableNames(db.schema);
    // Make the record's own delete fail, after every other delete has run in the transaction.
    await db.query(`CREATE FUNCTION ${n.schema}.refuse() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN RAISE EXCEPTION 'refused by test'; END $$`);
    await db.query(
      `CREATE TRIGGER refuse BEFORE DELETE ON ${n.sessions} FOR EACH ROW EXECUTE FUNCTION ${n.schema}.refuse()`,
    );
    await expect(db.stores.sessions.remove("s1")).rejects.toThrow(/refused by test/);
    expect(await rowsOf("s1")).toEqual(before);
    expect(await db.stores.resources.count(bucketA("s1"), "items/", { leaf: true })).toBe(1);
    await db.query(`DROP TRIGGER refuse ON ${n.sessions}`);
    expect(await db.stores.sessions.remove("s1")).not.toBeNull();
  });
});
