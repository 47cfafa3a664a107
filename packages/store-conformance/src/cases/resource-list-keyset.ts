import type { FlowStores, ListOptions, ScopeAddress } from "@flowrt/core";
import { expect } from "vitest";
import { defineCase } from "../case.js";
import { sessionAddress } from "../fixtures.js";

/** Keys and total of a list, checked against `listText` (when the store has it) with the same options. */
async function listed(stores: FlowStores, address: ScopeAddress, options: ListOptions) {
  const page = await stores.resources.list(address, options);
  const keys = page.items.map((item) => item.key);
  if (stores.resources.listText) {
    const text = await stores.resources.listText(address, options);
    expect({ keys: text.items.map((item) => item.key), total: text.total }).toEqual({
      keys,
      total: page.total,
    });
  }
  return { keys, total: page.total };
}

/** Every page of a listing by keyset, `limit` at a time. */
async function pagesByKeyset(
  stores: FlowStores,
  address: ScopeAddress,
  options: ListOptions,
  limit: number,
): Promise<string[]> {
  const keys: string[] = [];
  let after: string | undefined;
  for (let round = 0; round < 200; round++) {
    const page = await listed(stores, address, {
      ...options,
      limit,
      ...(after === undefined ? {} : { after }),
    });
    if (page.keys.length === 0) return keys;
    expect(page.keys.length).toBeLessThanOrEqual(limit);
    keys.push(...page.keys);
    after = page.keys[page.keys.length - 1];
  }
  throw new Error("keyset paging never ended");
}

const KEYS = [
  "items/a",
  "items/a/x",
  "items/a/y/z",
  "items/ab",
  "items/b",
  "items/b/c",
  "items/c",
  "items/\u{1F600}",
  "items/\uFFFD",
  "itemsX",
  "other/a",
  "a",
];

export const resourceListKeysetCases = [
  defineCase(
    "resources/list-after",
    "list with after returns only keys strictly greater, combined with prefix, leaf and offset; total still counts every match",
    async (stores) => {
      const address = sessionAddress();
      const shuffled = [...KEYS].sort((a, b) =>
        a.split("").reverse().join("") < b.split("").reverse().join("") ? -1 : 1,
      );
      for (const [i, key] of shuffled.entries()) {
        expect(await stores.resources.putState(address, key, { i }, { type: "absent" })).toMatchObject({
          ok: true,
        });
      }
      // A tombstone between live keys is not listed, and a deleted key still works as a position.
      await stores.resources.putState(address, "items/aa", { gone: true }, { type: "absent" });
      await stores.resources.deleteState(address, "items/aa", { type: "any" });
      const items = KEYS.filter((k) => k.startsWith("items/")).sort();
      const leaves = items.filter((k) => !k.slice("items/".length).includes("/"));

      // After a key that exists: that key is left out.
      expect(await listed(stores, address, { prefix: "items/", after: "items/ab" })).toEqual({
        keys: items.filter((k) => k > "items/ab"),
        total: items.length,
      });
      // After a key that does not exist (a deleted one), and after one outside the prefix.
      expect(await listed(stores, address, { prefix: "items/", after: "items/aa" })).toEqual({
        keys: items.filter((k) => k > "items/aa"),
        total: items.length,
      });
      expect(await listed(stores, address, { prefix: "items/", after: "a" })).toEqual({
        keys: items,
        total: items.length,
      });
      expect(await listed(stores, address, { prefix: "items/", after: "items/" })).toEqual({
        keys: items,
        total: items.length,
      });
      // After the last key, or beyond the prefix's end: nothing, total unchanged.
      expect(await listed(stores, address, { prefix: "items/", after: items[items.length - 1]! })).toEqual({
        keys: [],
        total: items.length,
      });
      expect(await listed(stores, address, { prefix: "items/", after: "z" })).toEqual({
        keys: [],
        total: items.length,
      });
      // Keys with a prefix of `after` sort after it: "items/a/x" comes after "items/a".
      expect((await listed(stores, address, { prefix: "items/a", after: "items/a", limit: 2 })).keys).toEqual(
        ["items/a/x", "items/a/y/z"],
      );

      // With leaf: the page holds only direct children after the position.
      expect(await listed(stores, address, { prefix: "items/", leaf: true, after: "items/a/x" })).toEqual({
        keys: leaves.filter((k) => k > "items/a/x"),
        total: leaves.length,
      });
      expect(await listed(stores, address, { prefix: "items/", leaf: true, after: "items/b" })).toEqual({
        keys: leaves.filter((k) => k > "items/b"),
        total: leaves.length,
      });
      // With offset, counted from the position; with limit.
      expect(
        await listed(stores, address, { prefix: "items/", after: "items/ab", offset: 2, limit: 2 }),
      ).toEqual({
        keys: items.filter((k) => k > "items/ab").slice(2, 4),
        total: items.length,
      });
      expect(await listed(stores, address, { prefix: "items/", after: "items/ab", offset: 50 })).toEqual({
        keys: [],
        total: items.length,
      });
      // Without a prefix: the whole bucket, astral keys in code-unit order.
      const everything = [...KEYS].sort();
      expect(await listed(stores, address, { after: "items/c" })).toEqual({
        keys: everything.filter((k) => k > "items/c"),
        total: KEYS.length,
      });
    },
  ),

  defineCase(
    "resources/list-after-pages",
    "pages by keyset cover every key of a prefix exactly once, with and without leaf",
    async (stores) => {
      const address = sessionAddress();
      const keys: string[] = [];
      for (let i = 0; i < 30; i++) {
        keys.push(`coll/${String(i).padStart(2, "0")}`);
        if (i % 4 === 0) keys.push(`coll/${String(i).padStart(2, "0")}/child`);
      }
      for (const key of [...keys].reverse())
        await stores.resources.putState(address, key, {}, { type: "absent" });
      await stores.resources.putState(address, "coll", {}, { type: "absent" });
      await stores.resources.putState(address, "colm/1", {}, { type: "absent" });
      const sorted = [...keys].sort();
      const direct = sorted.filter((k) => k.split("/").length === 2);
      for (const limit of [1, 4, 7, 100]) {
        expect(await pagesByKeyset(stores, address, { prefix: "coll/" }, limit)).toEqual(sorted);
        expect(await pagesByKeyset(stores, address, { prefix: "coll/", leaf: true }, limit)).toEqual(direct);
      }
    },
  ),
] as const;
