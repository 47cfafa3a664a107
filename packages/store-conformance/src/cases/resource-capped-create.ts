import type { CasResult, FlowStores, JsonObject, ScopeAddress, WriteCondition } from "@flowrt/core";
import { expect } from "vitest";
import { defineCase } from "../case.js";
import { sessionAddress } from "../fixtures.js";

const capped = (prefix: string, max: number, leaf?: boolean): WriteCondition => ({
  type: "absent",
  cap: { prefix, max, ...(leaf === undefined ? {} : { leaf }) },
});

const FULL: CasResult<JsonObject> = { ok: false, current: null, full: true };

/** A refusal for the cap that stored nothing: the key reads absent and a later plain create starts at version 1. */
async function expectNothingAt(stores: FlowStores, address: ScopeAddress, key: string): Promise<void> {
  expect(await stores.resources.getState(address, key)).toBeNull();
  expect(await stores.resources.putState(address, key, { later: true }, { type: "absent" })).toEqual({
    ok: true,
    version: 1,
  });
  await stores.resources.deleteState(address, key, { type: "any" });
}

export const resourceCappedCreateCases = [
  defineCase(
    "resources/capped-create",
    "a capped create lands only while the prefix holds fewer than max live keys; a live key is refused as absent, not full",
    async (stores) => {
      const r = stores.resources;
      const address = sessionAddress();
      // Keys the `leaf` cap of items/ does not count: deeper ones, and ones outside the prefix.
      for (const key of ["items/x/1", "items/y/2", "itemsz", "other/items/a"])
        expect(await r.putState(address, key, { outside: key }, { type: "any" })).toMatchObject({ ok: true });

      expect(await r.putState(address, "items/a", { n: 1 }, capped("items/", 2, true))).toEqual({
        ok: true,
        version: 1,
      });
      expect(await r.putState(address, "items/b", { n: 2 }, capped("items/", 2, true))).toEqual({
        ok: true,
        version: 1,
      });
      expect(await r.putState(address, "items/c", { n: 3 }, capped("items/", 2, true))).toEqual(FULL);
      expect(await r.count(address, "items/", { leaf: true })).toBe(2);

      // A live key is refused as any create-only write is, with its value, even with the prefix full.
      const live = await r.putState(address, "items/a", { n: 9 }, capped("items/", 2, true));
      expect(live).toMatchObject({ ok: false, current: { value: { n: 1 }, version: 1 } });
      expect((live as { full?: unknown }).full).not.toBe(true);
      // ... and, with room, still refused without touching the key.
      expect(await r.putState(address, "items/a", { n: 9 }, capped("items/", 10, true))).toMatchObject({
        ok: false,
        current: { value: { n: 1 }, version: 1 },
      });
      expect(await r.getState(address, "items/a")).toMatchObject({ state: { n: 1 }, version: 1 });

      // A tombstone counts as absent: for the key written over it, and in the count.
      expect(await r.deleteState(address, "items/b", { type: "any" })).toMatchObject({ ok: true });
      expect(await r.putState(address, "items/b", { n: 4 }, capped("items/", 2, true))).toEqual({
        ok: true,
        version: 3,
      });
      expect(await r.deleteState(address, "items/b", { type: "any" })).toMatchObject({ ok: true });
      expect(await r.putState(address, "items/c", { n: 5 }, capped("items/", 2, true))).toEqual({
        ok: true,
        version: 1,
      });

      // Without `leaf`, deeper keys under the prefix count (items/a, items/c, items/x/1, items/y/2), outside ones never.
      expect(await r.putState(address, "items/d", { n: 6 }, capped("items/", 4))).toEqual(FULL);
      expect(await r.putState(address, "items/d", { n: 6 }, capped("items/", 5))).toEqual({
        ok: true,
        version: 1,
      });
      expect(await r.putState(address, "items/x/3", { n: 7 }, capped("items/x/", 2, true))).toEqual({
        ok: true,
        version: 1,
      });
      expect(await r.putState(address, "items/x/4", { n: 8 }, capped("items/x/", 2, true))).toEqual(FULL);
      expect(await r.putState(address, "new", { n: 9 }, capped("items/", 0))).toEqual(FULL);

      expect(await r.putState(address, "items/e", { n: 10 }, capped("items/", 3, true))).toEqual(FULL);
      for (const key of ["items/e", "items/x/4", "new"]) await expectNothingAt(stores, address, key);
      expect(await r.count(address, "items/", { leaf: true })).toBe(3);
    },
  ),

  defineCase(
    "concurrency/capped-creates",
    "50 concurrent capped creates of distinct keys with max 10, over two store instances: exactly 10 land",
    async (stores, peer) => {
      const other = peer === undefined ? stores : await peer();
      const address = sessionAddress();
      const keys = Array.from({ length: 50 }, (_, i) => `notes/${String(i).padStart(2, "0")}`);
      // A key outside the prefix and a deeper one: neither takes room.
      await stores.resources.putState(address, "notes/deep/1", { deep: true }, { type: "any" });
      await other.resources.putState(address, "other", { outside: true }, { type: "any" });
      const results = await Promise.all(
        keys.map((key, i) =>
          (i % 2 === 0 ? stores : other).resources.putState(address, key, { i }, capped("notes/", 10, true)),
        ),
      );
      const landed = keys.filter((_, i) => results[i]!.ok);
      expect(landed).toHaveLength(10);
      for (const result of results) expect(result).toEqual(result.ok ? { ok: true, version: 1 } : FULL);
      const page = await stores.resources.list(address, { prefix: "notes/", leaf: true });
      expect(page.items.map((item) => item.key)).toEqual(landed);
      expect(page.total).toBe(10);
      expect(await other.resources.count(address, "notes/", { leaf: true })).toBe(10);
      for (const key of keys.filter((key) => !landed.includes(key)))
        expect(await other.resources.getState(address, key)).toBeNull();
    },
  ),
] as const;
