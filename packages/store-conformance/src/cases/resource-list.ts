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

async function listedKeys(stores: FlowStores, address: ScopeAddress, prefix?: string): Promise<string[]> {
  const page = await stores.resources.list(address, prefix === undefined ? undefined : { prefix });
  return page.items.map((item) => item.key);
}

/** JavaScript's default sort compares UTF-16 code units, the order the contract fixes. */
const codeUnitSort = (keys: string[]) => [...keys].sort();

export const resourceListCases = [
  defineCase(
    "resources/list-order",
    "list returns live keys in code-unit order with their state",
    async (stores) => {
      const address = sessionAddress();
      const keys = [
        "notes/b",
        "notes/a",
        "Notes/z",
        "notes/a/b",
        "notes/a-b",
        "notes/ä",
        "notes/10",
        "notes/9",
        "a",
        "é",
        "~",
      ];
      await seed(stores, address, keys);

      const page = await stores.resources.list(address);
      expect(page.total).toBe(keys.length);
      expect(page.items.map((item) => item.key)).toEqual(codeUnitSort(keys));
      const first = page.items.find((item) => item.key === "notes/b")!;
      expect(first).toMatchObject({ key: "notes/b", state: { i: 0 }, version: 1 });
      expect(typeof first.createdAt).toBe("number");
      expect(typeof first.accessedAt).toBe("number");
      expect(await listedKeys(stores, address, "")).toEqual(codeUnitSort(keys));
    },
  ),

  defineCase(
    "resources/list-order-astral",
    "keys above U+FFFF sort by UTF-16 code units (before U+E000..U+FFFF)",
    async (stores) => {
      const address = sessionAddress();
      // Code-unit order puts the surrogate pair of U+1F600 (0xD83D…) before U+FFFD and U+E000;
      // code-point (UTF-8 byte) order would put it after them.
      const keys = ["k/\uFFFD", "k/\u{1F600}", "k/\uE000", "k/z"];
      await seed(stores, address, keys);
      expect(await listedKeys(stores, address)).toEqual(["k/z", "k/\u{1F600}", "k/\uE000", "k/\uFFFD"]);
      expect(await listedKeys(stores, address)).toEqual(codeUnitSort(keys));
    },
  ),

  defineCase(
    "resources/list-paging",
    "offset and limit page through a prefix; total and count ignore paging",
    async (stores) => {
      const address = sessionAddress();
      const items = Array.from({ length: 25 }, (_, i) => `items/${String(i).padStart(3, "0")}`);
      const shuffled = [...items].sort((a, b) =>
        a.split("").reverse().join("") < b.split("").reverse().join("") ? -1 : 1,
      );
      await seed(stores, address, [...shuffled, "itemz", "item", "other/1"]);
      const r = stores.resources;

      const page = await r.list(address, { prefix: "items/", offset: 5, limit: 10 });
      expect(page.total).toBe(25);
      expect(page.items.map((item) => item.key)).toEqual(items.slice(5, 15));
      expect(
        (await r.list(address, { prefix: "items/", offset: 20, limit: 10 })).items.map((i) => i.key),
      ).toEqual(items.slice(20));
      expect(await r.list(address, { prefix: "items/", offset: 30, limit: 10 })).toEqual({
        items: [],
        total: 25,
      });
      expect(await r.list(address, { prefix: "items/", limit: 0 })).toEqual({ items: [], total: 25 });
      expect((await r.list(address, { prefix: "items/", offset: 24 })).items.map((i) => i.key)).toEqual([
        items[24],
      ]);

      expect(await r.count(address, "items/")).toBe(25);
      expect(await r.count(address, "item")).toBe(27);
      expect(await r.count(address)).toBe(28);
      expect(await r.count(address, "")).toBe(28);
      expect(await r.count(address, "nothing")).toBe(0);
      expect(await r.list(address, { prefix: "nothing" })).toEqual({ items: [], total: 0 });

      await r.deleteState(address, items[0]!, { type: "any" });
      expect(await r.count(address, "items/")).toBe(24);
      const afterDelete = await r.list(address, { prefix: "items/", limit: 2 });
      expect(afterDelete).toMatchObject({ total: 24 });
      expect(afterDelete.items.map((i) => i.key)).toEqual(items.slice(1, 3));
    },
  ),

  defineCase(
    "resources/list-prefix-plain",
    "a prefix is a plain string: % _ * and backslash match only themselves",
    async (stores) => {
      const address = sessionAddress();
      const keys = ["a%b", "a_b", "a*b", "a\\b", "axb", "a.b", "a[b", "ab", "A%b"];
      await seed(stores, address, keys);
      for (const special of ["%", "_", "*", "\\", ".", "["]) {
        const prefix = `a${special}`;
        expect(await listedKeys(stores, address, prefix)).toEqual([`a${special}b`]);
        expect(await stores.resources.count(address, prefix)).toBe(1);
      }
      expect(await listedKeys(stores, address, "%")).toEqual([]);
      expect(await listedKeys(stores, address, "a")).toEqual(
        codeUnitSort(keys.filter((k) => k.startsWith("a"))),
      );
    },
  ),

  defineCase(
    "resources/list-prefix-edges",
    "prefixes ending in high code units still bound the range exactly",
    async (stores) => {
      const address = sessionAddress();
      const keys = ["p\uFFFF", "p\uFFFFa", "p\uFFFF\uFFFF", "q", "p", "pa", "o\uFFFF"];
      await seed(stores, address, keys);
      expect(await listedKeys(stores, address, "p\uFFFF")).toEqual(["p\uFFFF", "p\uFFFFa", "p\uFFFF\uFFFF"]);
      expect(await stores.resources.count(address, "p\uFFFF")).toBe(3);
      expect(await stores.resources.count(address, "p")).toBe(5);
      expect(await listedKeys(stores, address, "o")).toEqual(["o\uFFFF"]);
    },
  ),
] as const;
