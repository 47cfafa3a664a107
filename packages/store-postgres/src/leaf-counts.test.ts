/**
 * Leaf counts (`count(address, prefix, { leaf: true })`, and a leaf page's `total`) of `""` and of prefixes ending
 * in `/` come from the counter table, kept in each write's transaction. Checked against a real count of the stored
 * keys after concurrent creates, upserts, deletes, capped creates and a scope removal from two store instances
 * (two pools on a server).
 */
import type { ScopeAddress } from "@flowrt/core";
import { afterAll, afterEach, beforeEach, describe, expect, it } from "vitest";
import { decodeKey } from "./key-codec.js";
import { tableNames } from "./sql.js";
import { backends, closeSharedPglite, createTestStoresOn, type TestStores } from "./testing/databases.js";

afterAll(() => closeSharedPglite());

/** A small deterministic PRNG (mulberry32), so a failure replays. */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const KEYS = [
  "a",
  "b",
  "f/",
  "f/1",
  "f/2",
  "f/3",
  "f/g/1",
  "f/g/2",
  "f/g/h/1",
  "h/1",
  "h/2/",
  "h/2/x",
  "\ud83d\ude00/1",
  "\ud83d\ude00/\ue000",
];
const FOLDERS = ["", "f/", "f/g/", "f/g/h/", "h/", "h/2/", "\ud83d\ude00/", "none/"];

describe.each(backends)("leaf counts from counters (%s)", (on) => {
  let a: TestStores;
  let b: TestStores;
  beforeEach(async () => {
    a = await createTestStoresOn(on);
    b = await createTestStoresOn(on, { schema: a.schema });
  });
  afterEach(async () => {
    await b.destroy();
    await a.destroy();
  });

  /** The live keys of an address as stored, read without the counters. */
  const liveKeys = async (address: ScopeAddress) => {
    const n = tableNames(a.schema);
    const rows = await a.query<{ key: Uint8Array }>(
      `SELECT key FROM ${n.resources} WHERE scope = $1 AND scope_id = $2 AND bucket = $3 AND NOT deleted`,
      [address.scope, address.scopeId, address.bucket],
    );
    return rows.map((row) => decodeKey(row.key));
  };
  const folderOf = (key: string) => key.slice(0, key.lastIndexOf("/") + 1);

  /** Every folder's leaf count and prefix count, from the store, equal what the stored keys say. */
  const expectExact = async (address: ScopeAddress) => {
    const keys = await liveKeys(address);
    for (const folder of FOLDERS) {
      const leaf = keys.filter((key) => folderOf(key) === folder).length;
      const all = keys.filter((key) => key.startsWith(folder)).length;
      expect([folder, await a.stores.resources.count(address, folder, { leaf: true })]).toEqual([
        folder,
        leaf,
      ]);
      expect([folder, await b.stores.resources.count(address, folder)]).toEqual([folder, all]);
      const page = await a.stores.resources.list(address, { prefix: folder, leaf: true, limit: 1 });
      expect([folder, page.total]).toEqual([folder, leaf]);
    }
  };

  it("follow creates, revivals, updates and deletes, tombstones included", async () => {
    const r = a.stores.resources;
    const at: ScopeAddress = { scope: "session", scopeId: "s", bucket: "x" };
    for (const key of KEYS) await r.putState(at, key, {}, { type: "absent" });
    await expectExact(at);
    expect(await r.count(at, "f/", { leaf: true })).toBe(4); // f/, f/1, f/2, f/3
    await r.deleteState(at, "f/1", { type: "any" });
    await r.deleteState(at, "f/1", { type: "any" }); // nothing live: no change
    await r.putState(at, "f/2", { v: 2 }, { type: "version", version: 1 }); // an update: no change
    await r.putState(at, "f/1", {}, { type: "any" }); // a revival
    await r.deleteState(at, "f/g/h/1", { type: "version", version: 1 });
    await r.putState(at, "f/g/h/1", {}, { type: "absent", cap: { prefix: "f/g/h/", leaf: true, max: 1 } });
    await expectExact(at);
    expect(await r.count(at, "f/g/h/", { leaf: true })).toBe(1);
    // Other prefixes count the leaf index range (no counter row): still exact.
    expect(await r.count(at, "f/g", { leaf: true })).toBe(0);
    expect(await r.count(at, "f/", { leaf: true })).toBe(4);
    expect(await r.count(at, "f/2", { leaf: true })).toBe(1);
  });

  it("stay exact under concurrent writes from two stores, capped creates and a scope removal included", async () => {
    const next = random(20);
    const addresses: ScopeAddress[] = [
      { scope: "user", scopeId: "u", bucket: "x" },
      { scope: "user", scopeId: "u", bucket: "y" },
      { scope: "user", scopeId: "w", bucket: "x" },
    ];
    const pick = <T>(items: readonly T[]) => items[Math.floor(next() * items.length)] as T;
    const operation = (round: number) => {
      const stores = (next() < 0.5 ? a : b).stores;
      const address = pick(addresses);
      const key = pick(KEYS);
      const roll = next();
      if (round === 2 && roll < 0.02) return stores.scopeState.removeScope("user", "u");
      if (roll < 0.3) return stores.resources.putState(address, key, { roll }, { type: "absent" });
      if (roll < 0.45) return stores.resources.putState(address, key, { roll }, { type: "any" });
      if (roll < 0.75) return stores.resources.deleteState(address, key, { type: "any" });
      if (roll < 0.85)
        return stores.resources.putState(
          address,
          key,
          { roll },
          { type: "absent", cap: { prefix: folderOf(key), leaf: true, max: 2 } },
        );
      if (roll < 0.9)
        return stores.resources.putState(
          address,
          key,
          { roll },
          { type: "absent", cap: { prefix: folderOf(key), max: 5 } },
        );
      return stores.resources
        .getState(address, key)
        .then((record) =>
          record
            ? stores.resources.deleteState(address, key, { type: "version", version: record.version })
            : null,
        );
    };
    for (let round = 0; round < 4; round++) {
      await Promise.all(Array.from({ length: 150 }, () => operation(round)));
      for (const address of addresses) await expectExact(address);
    }
    // Every counter row agrees with the keys, including rows of folders now empty.
    const n = tableNames(a.schema);
    const counters = await a.query<{
      scope_id: string;
      bucket: string;
      prefix: Uint8Array;
      live: unknown;
      leaf: unknown;
    }>(`SELECT scope_id, bucket, prefix, live, leaf FROM ${n.counts} WHERE scope = 'user'`);
    expect(counters.length).toBeGreaterThan(0);
    for (const row of counters) {
      const keys = await liveKeys({ scope: "user", scopeId: row.scope_id, bucket: row.bucket });
      const prefix = decodeKey(row.prefix);
      expect([prefix, Number(row.live), Number(row.leaf)]).toEqual([
        prefix,
        keys.filter((key) => key.startsWith(prefix)).length,
        keys.filter((key) => folderOf(key) === prefix).length,
      ]);
    }
  });

  it("hold a leaf cap: concurrent capped creates from two stores fill a folder exactly to max", async () => {
    const at: ScopeAddress = { scope: "session", scopeId: "caps", bucket: "x" };
    // Deeper keys and a tombstone under the folder do not count against the cap.
    await a.stores.resources.putState(at, "items/deep/1", {}, { type: "absent" });
    await a.stores.resources.putState(at, "items/dead", {}, { type: "absent" });
    await a.stores.resources.deleteState(at, "items/dead", { type: "any" });
    const results = await Promise.all(
      Array.from({ length: 24 }, (_, i) =>
        (i % 2 ? a : b).stores.resources.putState(
          at,
          `items/${i}`,
          {},
          { type: "absent", cap: { prefix: "items/", leaf: true, max: 7 } },
        ),
      ),
    );
    expect(results.filter((result) => result.ok)).toHaveLength(7);
    expect(results.filter((result) => !result.ok && result.full)).toHaveLength(17);
    expect(await a.stores.resources.count(at, "items/", { leaf: true })).toBe(7);
    expect((await liveKeys(at)).filter((key) => folderOf(key) === "items/")).toHaveLength(7);
  });
});
