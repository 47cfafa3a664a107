import type { ScopeAddress } from "@flowrt/core";
import { afterAll, afterEach, beforeEach, describe, expect, it } from "vitest";
import type { PostgresDriver } from "./driver.js";
import { createPostgresStores } from "./stores.js";
import {
  backend,
  closeSharedPglite,
  createTestStores,
  type TestStores,
  testDriver,
} from "./testing/databases.js";

const at: ScopeAddress = { scope: "session", scopeId: "s1", bucket: "shared" };

describe(`postgres resource store (${backend})`, () => {
  let db: TestStores;
  beforeEach(async () => {
    db = await createTestStores();
  });
  afterEach(() => db.destroy());
  afterAll(() => closeSharedPglite());

  it("continues the version count across a delete and a re-create", async () => {
    const r = db.stores.resources;
    expect(await r.putState(at, "notes/a", { n: 1 }, { type: "absent" })).toEqual({ ok: true, version: 1 });
    expect(await r.putState(at, "notes/a", { n: 2 }, { type: "version", version: 1 })).toEqual({
      ok: true,
      version: 2,
    });
    expect(await r.deleteState(at, "notes/a", { type: "version", version: 2 })).toEqual({
      ok: true,
      version: 3,
    });
    expect(await r.getState(at, "notes/a")).toBeNull();
    expect(await r.putState(at, "notes/a", { n: 3 }, { type: "version", version: 3 })).toEqual({
      ok: false,
      current: null,
    });
    expect(await r.putState(at, "notes/a", { n: 4 }, { type: "absent" })).toEqual({ ok: true, version: 4 });
    expect(await r.getState(at, "notes/a")).toMatchObject({ key: "notes/a", state: { n: 4 }, version: 4 });
  });

  it("returns the live value when a compare-and-swap loses, and writes nothing", async () => {
    const r = db.stores.resources;
    await r.putState(at, "k", { n: 1 }, { type: "absent" });
    expect(await r.putState(at, "k", { n: 9 }, { type: "absent" })).toEqual({
      ok: false,
      current: { value: { n: 1 }, version: 1 },
    });
    expect(await r.putState(at, "k", { n: 9 }, { type: "version", version: 7 })).toEqual({
      ok: false,
      current: { value: { n: 1 }, version: 1 },
    });
    expect(await r.getState(at, "k")).toMatchObject({ state: { n: 1 }, version: 1 });
  });

  it("deleting the state also deletes the content row; a refused delete keeps both", async () => {
    const r = db.stores.resources;
    await r.putState(at, "doc", {}, { type: "absent" });
    await r.putContent(at, "doc", "body");
    expect(await r.deleteState(at, "doc", { type: "version", version: 5 })).toMatchObject({ ok: false });
    expect(await r.getContent(at, "doc")).toBe("body");
    expect(await r.deleteState(at, "doc", { type: "any" })).toEqual({ ok: true, version: 2 });
    expect(await r.getContent(at, "doc")).toBeNull();
    expect(await r.deleteState(at, "doc", { type: "any" })).toEqual({ ok: true, version: 2 });
    expect(await r.deleteState(at, "never", { type: "version", version: 1 })).toEqual({
      ok: false,
      current: null,
    });
  });

  it("lists in UTF-16 code unit order, including characters above U+FFFF", async () => {
    const r = db.stores.resources;
    const keys = ["k/\uff61", "k/😀", "k/z", "k/\u00e9", "k/A", "k/\ud800", "k/a\u0000b"];
    for (const key of keys) await r.putState(at, key, { key }, { type: "absent" });
    const page = await r.list(at, { prefix: "k/" });
    expect(page.items.map((item) => item.key)).toEqual([...keys].sort());
    expect(page.total).toBe(keys.length);
    expect(page.items.find((item) => item.key === "k/\ud800")?.state).toEqual({ key: "k/\ud800" });
  });

  it("treats % _ * in a prefix as plain characters", async () => {
    const r = db.stores.resources;
    for (const key of ["a%b/1", "axb/1", "a_b/1", "a*b/1", "a%/2"])
      await r.putState(at, key, {}, { type: "absent" });
    expect((await r.list(at, { prefix: "a%" })).items.map((i) => i.key)).toEqual(["a%/2", "a%b/1"]);
    expect((await r.list(at, { prefix: "a_" })).items.map((i) => i.key)).toEqual(["a_b/1"]);
    expect(await r.count(at, "a*")).toBe(1);
    expect(await r.count(at, "a%b/")).toBe(1);
  });

  it("bounds a prefix that ends in U+FFFF or U+00FF correctly", async () => {
    const r = db.stores.resources;
    for (const key of ["\uffff", "\uffffa", "\u00ff", "\u00ffb", "\u0100"])
      await r.putState(at, key, {}, { type: "absent" });
    expect((await r.list(at, { prefix: "\uffff" })).items.map((i) => i.key)).toEqual(["\uffff", "\uffffa"]);
    expect((await r.list(at, { prefix: "\u00ff" })).items.map((i) => i.key)).toEqual(["\u00ff", "\u00ffb"]);
    expect(await r.count(at, "\u00ff")).toBe(2);
  });

  it("pages with offset and limit and reports the total of the prefix", async () => {
    const r = db.stores.resources;
    for (let i = 0; i < 12; i++)
      await r.putState(at, `items/${String(i).padStart(2, "0")}`, { i }, { type: "absent" });
    await r.putState(at, "itemsX", {}, { type: "absent" });
    await r.deleteState(at, "items/05", { type: "any" });
    const page = await r.list(at, { prefix: "items/", offset: 3, limit: 4 });
    expect(page.items.map((i) => i.key)).toEqual(["items/03", "items/04", "items/06", "items/07"]);
    expect(page.total).toBe(11);
    expect(await r.count(at, "items")).toBe(12);
    expect(await r.count(at)).toBe(12);
    expect(await r.count({ ...at, bucket: "other" })).toBe(0);
  });

  it("keeps the per-prefix counters exact through create, delete and revive", async () => {
    const r = db.stores.resources;
    await r.putState(at, "a/b/c", {}, { type: "any" });
    await r.putState(at, "a/b/d", {}, { type: "absent" });
    await r.putState(at, "a/e", {}, { type: "absent" });
    await r.putState(at, "a/e", { x: 1 }, { type: "any" });
    await r.deleteState(at, "a/b/c", { type: "any" });
    await r.deleteState(at, "a/b/c", { type: "any" });
    await r.putState(at, "a/b/c", {}, { type: "any" });
    await r.deleteState(at, "a/b/d", { type: "version", version: 1 });
    for (const prefix of ["", "a/", "a/b/", "a/b"]) {
      const listed = (await r.list(at, { prefix })).items.length;
      expect(await r.count(at, prefix)).toBe(listed);
    }
    expect(await r.count(at, "a/b/")).toBe(1);
  });

  it("touch moves accessedAt without a version change; a revive gets a new createdAt", async () => {
    const r = db.stores.resources;
    await r.putState(at, "t", {}, { type: "absent" });
    const before = await r.getState(at, "t");
    await r.touch(at, "t", 42);
    expect(await r.getState(at, "t")).toEqual({ ...before, accessedAt: 42 });
    await r.touch(at, "missing", 42);
    expect(await r.getState(at, "missing")).toBeNull();
  });

  it("reads copies and keeps an empty body distinct from no content", async () => {
    const r = db.stores.resources;
    const state = { list: [1, { deep: null }], s: "x" };
    await r.putState(at, "c", state, { type: "absent" });
    state.list.push(2);
    const read = await r.getState(at, "c");
    expect(read?.state).toEqual({ list: [1, { deep: null }], s: "x" });
    expect(await r.getContent(at, "c")).toBeNull();
    await r.putContent(at, "c", "");
    expect(await r.getContent(at, "c")).toBe("");
    await r.deleteContent(at, "c");
    expect(await r.getContent(at, "c")).toBeNull();
  });

  it("64 concurrent compare-and-swap increments of one key through one store all land, and no doomed statement reaches the database", async () => {
    const inner = await testDriver();
    const versionedUpdates: number[] = [];
    const driver: PostgresDriver = {
      ...inner,
      query(text, params) {
        if (/^UPDATE .*flowrt_resources" SET state/.test(text)) versionedUpdates.push(1);
        return inner.query(text, params);
      },
    };
    const stores = createPostgresStores({ driver, schema: db.schema });
    const address: ScopeAddress = { scope: "user", scopeId: "u1", bucket: "shared" };
    await stores.resources.putState(address, "counter", { n: 0 }, { type: "absent" });
    let attempts = 0;
    await Promise.all(
      Array.from({ length: 64 }, async () => {
        const stored = await stores.resources.getState(address, "counter");
        let seen = { n: Number(stored?.state.n), version: stored?.version ?? 0 };
        for (;;) {
          attempts++;
          const next = { n: seen.n + 1 };
          const result = await stores.resources.putState(address, "counter", next, {
            type: "version",
            version: seen.version,
          });
          if (result.ok) return;
          seen = { n: Number(result.current?.value.n), version: result.current?.version ?? 0 };
        }
      }),
    );
    expect(await stores.resources.getState(address, "counter")).toMatchObject({
      state: { n: 64 },
      version: 65,
    });
    expect(attempts).toBeGreaterThan(64); // the races were real
    // Every version-guarded UPDATE sent was one that could win, and did.
    expect(versionedUpdates).toHaveLength(64);
    await stores.close(); // closes `inner` too (a pool of its own on a server)
  });
});
