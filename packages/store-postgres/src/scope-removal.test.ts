/** `scopeState.removeScope`: a user's or org's state, resources (tombstones included), content and counters. */
import type { ScopeAddress } from "@flowrt/core";
import { afterAll, afterEach, beforeEach, describe, expect, it } from "vitest";
import { tableNames } from "./sql.js";
import { backends, closeSharedPglite, createTestStoresOn, type TestStores } from "./testing/databases.js";

afterAll(() => closeSharedPglite());

describe.each(backends)("scope removal (%s)", (on) => {
  let db: TestStores;
  beforeEach(async () => {
    db = await createTestStoresOn(on);
  });
  afterEach(() => db.destroy());

  const fill = async (scope: ScopeAddress["scope"], scopeId: string) => {
    for (const bucket of ["a", "b"]) {
      const address: ScopeAddress = { scope, scopeId, bucket };
      await db.stores.scopeState.put(address, { n: 1 }, { type: "any" });
      await db.stores.resources.putState(address, "notes/x", {}, { type: "absent" });
      await db.stores.resources.putContent(address, "notes/x", "body");
      await db.stores.resources.putState(address, "notes/gone", {}, { type: "absent" });
      await db.stores.resources.deleteState(address, "notes/gone", { type: "any" });
    }
  };
  const rows = async (scope: string, scopeId: string) => {
    const n = tableNames(db.schema);
    const out: Record<string, number> = {};
    for (const [name, table] of [
      ["states", n.scopeState],
      ["resources", n.resources],
      ["contents", n.contents],
      ["counters", n.counts],
    ] as const) {
      const [row] = await db.query<{ c: unknown }>(
        `SELECT count(*) AS c FROM ${table} WHERE scope = $1 AND scope_id = $2`,
        [scope, scopeId],
      );
      out[name] = Number(row?.c);
    }
    return out;
  };

  it("removes a user's or an org's rows in every bucket, counts them, and is idempotent", async () => {
    for (const [scope, id] of [
      ["user", "alice"],
      ["user", "bob"],
      ["org", "alice"],
      ["session", "alice"],
    ] as const)
      await fill(scope, id);
    const untouched = {
      bob: await rows("user", "bob"),
      org: await rows("org", "alice"),
      session: await rows("session", "alice"),
    };
    expect(await db.stores.scopeState.removeScope("user", "alice")).toEqual({
      states: 2,
      resources: 4,
      contents: 2,
    });
    expect(await rows("user", "alice")).toEqual({ states: 0, resources: 0, contents: 0, counters: 0 });
    expect(await db.stores.scopeState.removeScope("user", "alice")).toEqual({
      states: 0,
      resources: 0,
      contents: 0,
    });
    expect({
      bob: await rows("user", "bob"),
      org: await rows("org", "alice"),
      session: await rows("session", "alice"),
    }).toEqual(untouched);
    expect(await db.stores.scopeState.removeScope("org", "alice")).toEqual({
      states: 2,
      resources: 4,
      contents: 2,
    });
    expect(await rows("org", "alice")).toEqual({ states: 0, resources: 0, contents: 0, counters: 0 });
    // Writing the scope again starts from nothing.
    const address: ScopeAddress = { scope: "user", scopeId: "alice", bucket: "a" };
    expect(await db.stores.resources.putState(address, "notes/x", {}, { type: "absent" })).toEqual({
      ok: true,
      version: 1,
    });
    expect(await db.stores.resources.count(address, "notes/")).toBe(1);
    expect(await db.stores.resources.count(address, "notes/", { leaf: true })).toBe(1);
  });

  it("refuses any scope but user and org, removing nothing", async () => {
    await fill("session", "s1");
    const before = await rows("session", "s1");
    await expect(db.stores.scopeState.removeScope("session" as never, "s1")).rejects.toMatchObject({
      code: "invalid-request",
    });
    expect(await rows("session", "s1")).toEqual(before);
  });
});
