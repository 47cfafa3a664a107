import type { FlowStores, ScopeAddress } from "@flowrt/core";
import { expect } from "vitest";
import { defineCase } from "../case.js";
import { sessionAddress } from "../fixtures.js";

async function seed(stores: FlowStores, address: ScopeAddress, keys: string[]): Promise<void> {
  for (const [i, key] of keys.entries()) {
    expect(await stores.resources.putState(address, key, { i }, { type: "absent" })).toMatchObject({
      ok: true,
    });
  }
}

/** Keys and total of a `leaf` list, checked against `count` with the same option. */
async function leafKeys(stores: FlowStores, address: ScopeAddress, prefix: string): Promise<string[]> {
  const page = await stores.resources.list(address, { prefix, leaf: true });
  expect(page.total).toBe(page.items.length);
  expect(await stores.resources.count(address, prefix, { leaf: true })).toBe(page.total);
  return page.items.map((item) => item.key);
}

/** Keys in the shuffled order they are written, so no store can pass by keeping insertion order. */
const shuffle = (keys: string[]) =>
  [...keys].sort((a, b) => (a.split("").reverse().join("") < b.split("").reverse().join("") ? -1 : 1));

export const resourceListLeafCases = [
  defineCase(
    "resources/list-leaf",
    "leaf lists and counts only keys with no / after the prefix's last /, in code-unit order",
    async (stores) => {
      const address = sessionAddress();
      const keys = [
        "items/a",
        "items/a/b",
        "items/a/b/c",
        "items/ab",
        "items/b",
        "items/b/",
        "items/b/c/d",
        "items/",
        "items//x",
        "items/\u{1F600}",
        "items/\uFFFD",
        "items/\uFFFF/x",
        "items/a\u0000",
        "items",
        "itemsX",
        "itemsX/1",
        "other/x",
        "a",
        "b/c",
      ];
      await seed(stores, address, shuffle(keys));
      const other = sessionAddress();
      await seed(stores, other, ["items/zz", "items/a/zz", "zz"]);

      // With a trailing "/": the direct children of items/ (the key equal to the prefix included).
      expect(await leafKeys(stores, address, "items/")).toEqual([
        "items/",
        "items/a",
        "items/a\u0000",
        "items/ab",
        "items/b",
        "items/\u{1F600}",
        "items/\uFFFD",
      ]);
      // Without one: the same level, narrowed to keys starting with the whole prefix.
      expect(await leafKeys(stores, address, "items/a")).toEqual(["items/a", "items/a\u0000", "items/ab"]);
      expect(await leafKeys(stores, address, "items/a/")).toEqual(["items/a/b"]);
      expect(await leafKeys(stores, address, "items/b/")).toEqual(["items/b/"]);
      expect(await leafKeys(stores, address, "items/b/c/")).toEqual(["items/b/c/d"]);
      expect(await leafKeys(stores, address, "items//")).toEqual(["items//x"]);
      // A prefix without any "/": keys without any "/" at all.
      expect(await leafKeys(stores, address, "items")).toEqual(["items", "itemsX"]);
      expect(await leafKeys(stores, address, "")).toEqual(["a", "items", "itemsX"]);
      expect(await leafKeys(stores, address, "nothing/")).toEqual([]);
      expect(await leafKeys(stores, other, "items/")).toEqual(["items/zz"]);

      // The plain-prefix listing is unchanged beside it, and so is `leaf: false`.
      const plain = keys.filter((k) => k.startsWith("items/")).sort();
      expect((await stores.resources.list(address, { prefix: "items/" })).items.map((i) => i.key)).toEqual(
        plain,
      );
      expect(
        (await stores.resources.list(address, { prefix: "items/", leaf: false })).items.map((i) => i.key),
      ).toEqual(plain);
      expect(await stores.resources.count(address, "items/")).toBe(plain.length);
      expect(await stores.resources.count(address, "items/", { leaf: false })).toBe(plain.length);

      // Listed items carry their state; a deleted key leaves the leaf listing and its count.
      const page = await stores.resources.list(address, { prefix: "items/a", leaf: true, limit: 1 });
      expect(page.items[0]).toMatchObject({ key: "items/a", state: { i: expect.any(Number) }, version: 1 });
      await stores.resources.deleteState(address, "items/ab", { type: "any" });
      await stores.resources.deleteState(address, "items/a/b/c", { type: "any" });
      expect(await leafKeys(stores, address, "items/a")).toEqual(["items/a", "items/a\u0000"]);
      await stores.resources.putState(address, "items/ab", { again: true }, { type: "absent" });
      expect(await leafKeys(stores, address, "items/a")).toEqual(["items/a", "items/a\u0000", "items/ab"]);
    },
  ),

  defineCase(
    "resources/list-leaf-paging",
    "leaf pages by offset and limit over the leaf keys only; total and count ignore paging",
    async (stores) => {
      const address = sessionAddress();
      const items = Array.from({ length: 30 }, (_, i) => `items/${String(i).padStart(3, "0")}`);
      // Deeper keys between every few items in key order, and keys beside the prefix.
      const deeper = items.filter((_, i) => i % 3 === 0).flatMap((k) => [`${k}/x`, `${k}/y/z`]);
      await seed(stores, address, shuffle([...items, ...deeper, "items", "itemz/1", "other/1"]));
      const r = stores.resources;
      const keysOf = (page: { items: { key: string }[] }) => page.items.map((item) => item.key);

      const page = await r.list(address, { prefix: "items/", leaf: true, offset: 5, limit: 10 });
      expect(page.total).toBe(30);
      expect(keysOf(page)).toEqual(items.slice(5, 15));
      expect(keysOf(await r.list(address, { prefix: "items/", leaf: true, offset: 25, limit: 10 }))).toEqual(
        items.slice(25),
      );
      expect(await r.list(address, { prefix: "items/", leaf: true, offset: 30, limit: 10 })).toEqual({
        items: [],
        total: 30,
      });
      expect(await r.list(address, { prefix: "items/", leaf: true, limit: 0 })).toEqual({
        items: [],
        total: 30,
      });
      expect(keysOf(await r.list(address, { prefix: "items/", leaf: true, offset: 29 }))).toEqual([
        items[29],
      ]);
      expect(keysOf(await r.list(address, { prefix: "items/01", leaf: true, offset: 2, limit: 3 }))).toEqual(
        items.slice(12, 15),
      );
      expect((await r.list(address, { prefix: "items/01", leaf: true, limit: 3 })).total).toBe(10);

      // Walking every page in steps of 7 visits each item once, in order.
      const walked: string[] = [];
      for (let offset = 0; offset < 30; offset += 7)
        walked.push(...keysOf(await r.list(address, { prefix: "items/", leaf: true, offset, limit: 7 })));
      expect(walked).toEqual(items);

      expect(await r.count(address, "items/", { leaf: true })).toBe(30);
      expect(await r.count(address, "items/", {})).toBe(30 + deeper.length);
      expect(await r.count(address, "items/")).toBe(30 + deeper.length);
      expect(await r.count(address, "items/000/", { leaf: true })).toBe(1);
      expect(await r.count(address, "items/000/y/", { leaf: true })).toBe(1);

      await r.deleteState(address, items[0]!, { type: "any" });
      expect(await r.count(address, "items/", { leaf: true })).toBe(29);
      const afterDelete = await r.list(address, { prefix: "items/", leaf: true, limit: 2 });
      expect(afterDelete.total).toBe(29);
      expect(keysOf(afterDelete)).toEqual(items.slice(1, 3));
    },
  ),

  defineCase(
    "resources/list-leaf-prefix-plain",
    "a leaf prefix is a plain string: % _ * and backslash match only themselves",
    async (stores) => {
      const address = sessionAddress();
      const keys = [
        "p%/x",
        "p%/x/y",
        "p_/x",
        "pa/x",
        "p*/x",
        "p*/x/",
        "pb/x",
        "p\\/x",
        "p%",
        "p_",
        "p*",
        "pz",
      ];
      await seed(stores, address, shuffle(keys));
      for (const special of ["%", "_", "*", "\\"]) {
        expect(await leafKeys(stores, address, `p${special}/`)).toEqual([`p${special}/x`]);
        expect(await leafKeys(stores, address, `p${special}/x`)).toEqual([`p${special}/x`]);
      }
      expect(await leafKeys(stores, address, "p%")).toEqual(["p%"]);
      expect(await leafKeys(stores, address, "p_")).toEqual(["p_"]);
      expect(await leafKeys(stores, address, "%")).toEqual([]);
      expect(await leafKeys(stores, address, "p")).toEqual(["p%", "p*", "p_", "pz"]);
      expect(await leafKeys(stores, address, "p*/x/")).toEqual(["p*/x/"]);
    },
  ),
] as const;
