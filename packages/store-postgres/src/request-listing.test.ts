/**
 * `requests.listBySession` (newest first, keyset `after`) and `requests.removeByUser` (optionally one org), with
 * the removed requests' event logs and active entries.
 */
import type { RequestRecord } from "@flowrt/core";
import { afterAll, afterEach, beforeEach, describe, expect, it } from "vitest";
import { tableNames } from "./sql.js";
import { backends, closeSharedPglite, createTestStoresOn, type TestStores } from "./testing/databases.js";
import { requestRecord } from "./testing/records.js";

afterAll(() => closeSharedPglite());

const newestFirst = (a: RequestRecord, b: RequestRecord) =>
  a.createdAt === b.createdAt ? (a.id < b.id ? 1 : -1) : a.createdAt < b.createdAt ? 1 : -1;

describe.each(backends)("request listing and removal (%s)", (on) => {
  let db: TestStores;
  beforeEach(async () => {
    db = await createTestStoresOn(on);
  });
  afterEach(() => db.destroy());

  it("listBySession: newest first with ties by id; keyset pages cover every request once; others excluded", async () => {
    const r = db.stores.requests;
    const mine: RequestRecord[] = [];
    for (let i = 0; i < 17; i++) {
      const record = requestRecord({
        id: `${i % 3 === 0 ? "R" : "r"}-${i}`,
        sessionId: "s1",
        createdAt: `2026-01-0${(i % 4) + 1}T00:00:00.000Z`,
      });
      mine.push(record);
      await r.create(record);
    }
    await r.create(
      requestRecord({ id: "elsewhere", sessionId: "s2", createdAt: "2026-01-09T00:00:00.000Z" }),
    );
    const expected = mine.sort(newestFirst).map((x) => x.id);
    expect((await r.listBySession("s1", { limit: 100 })).map((x) => x.id)).toEqual(expected);
    const seen: string[] = [];
    let after: { createdAt: string; id: string } | undefined;
    for (;;) {
      const page = await r.listBySession("s1", { limit: 5, ...(after ? { after } : {}) });
      seen.push(...page.map((x) => x.id));
      const last = page.at(-1);
      if (page.length < 5 || !last) break;
      after = { createdAt: last.createdAt, id: last.id };
    }
    expect(seen).toEqual(expected);
    const first = (await r.listBySession("s1", { limit: 1 }))[0];
    expect(first).toEqual(mine.find((x) => x.id === expected[0]));
    expect(await r.listBySession("none", { limit: 10 })).toEqual([]);
    expect(await r.listBySession("s1", { limit: 0 })).toEqual([]);
    await expect(r.listBySession("s1", { limit: 1, after: { createdAt: 3 } as never })).rejects.toMatchObject(
      {
        code: "invalid-request",
      },
    );
  });

  it("removeByUser: every request of the user with its events and active entry; other users untouched", async () => {
    const r = db.stores.requests;
    const records = [
      requestRecord({ id: "a1", userId: "alice", orgId: "o1", sessionId: "s1", status: "running" }),
      requestRecord({ id: "a2", userId: "alice", orgId: "o2", sessionId: "s2", status: "running" }),
      requestRecord({ id: "a3", userId: "alice", sessionId: "s3", status: "running" }),
      requestRecord({ id: "b1", userId: "bob", orgId: "o1", sessionId: "s1", status: "running" }),
    ];
    for (const record of records) {
      await r.create(record);
      await r.appendEvent({ requestId: record.id, type: "t", at: record.createdAt, data: {} });
      await r.markActive({
        requestId: record.id,
        sessionId: record.sessionId,
        flowId: record.flowId,
        userId: record.userId,
        action: record.action,
        startedAt: record.createdAt,
      });
    }
    expect(await r.removeByUser("alice", { orgId: "o1" })).toBe(1);
    expect(await r.get("a1")).toBeNull();
    expect(await r.readEvents("a1")).toEqual([]);
    expect((await r.listActive({})).map((e) => e.requestId).sort()).toEqual(["a2", "a3", "b1"]);

    expect(await r.removeByUser("alice")).toBe(2);
    expect(await r.removeByUser("alice")).toBe(0);
    for (const id of ["a2", "a3"]) {
      expect(await r.get(id)).toBeNull();
      expect(await r.readEvents(id)).toEqual([]);
    }
    expect((await r.listActive({})).map((e) => e.requestId)).toEqual(["b1"]);
    expect(await r.get("b1")).not.toBeNull();
    expect(await r.readEvents("b1")).toHaveLength(1);
    // No seq counter is left behind: a request created again under a removed id starts its log at 1.
    const n = tableNames(db.schema);
    expect(await db.query(`SELECT request_id FROM ${n.eventSeq} ORDER BY request_id`)).toEqual([
      { request_id: "b1" },
    ]);
  });
});
