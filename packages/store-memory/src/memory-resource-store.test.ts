import type { ScopeAddress } from "@flowrt/core";
import { describe, expect, it } from "vitest";
import { createMemoryResourceStore } from "./memory-resource-store.js";

const address: ScopeAddress = { scope: "user", scopeId: "u1", bucket: "shared" };

describe("memory resource listing", () => {
  it("serves pages and counts from the index that follows every write and delete", async () => {
    const store = createMemoryResourceStore();
    const live = new Set<string>();
    let seed = 7;
    const next = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
    for (let step = 0; step < 3000; step++) {
      const key = `k/${Math.floor(next() * 800)
        .toString(36)
        .padStart(2, "_")}`;
      if (next() < 0.7) {
        await store.putState(address, key, { step }, { type: "any" });
        live.add(key);
      } else {
        await store.deleteState(address, key, { type: "any" });
        live.delete(key);
      }
    }
    const sorted = [...live].sort();
    expect(await store.count(address)).toBe(sorted.length);
    const page = await store.list(address, { prefix: "k/1", offset: 3, limit: 7 });
    const matching = sorted.filter((k) => k.startsWith("k/1"));
    expect(page.total).toBe(matching.length);
    expect(page.items.map((item) => item.key)).toEqual(matching.slice(3, 10));
    expect(await store.count(address, "k/_")).toBe(sorted.filter((k) => k.startsWith("k/_")).length);
  });

  it("leaf pages and counts follow every write, delete, update and touch (against a filter of all keys)", async () => {
    const store = createMemoryResourceStore();
    const live = new Map<string, number>();
    let seed = 11;
    const next = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
    const parts = ["a", "b", "/", "//", "é", "\uFFFF", "%"];
    const randomKey = () => {
      let key = "";
      for (let n = 1 + Math.floor(next() * 4); n > 0; n--) key += parts[Math.floor(next() * parts.length)];
      return key;
    };
    const randomSteps = async (from: number, to: number) => {
      for (let step = from; step < to; step++) {
        const key = randomKey();
        const roll = next();
        if (roll < 0.6) {
          await store.putState(address, key, { step }, { type: "any" });
          live.set(key, step);
        } else if (roll < 0.8) {
          await store.deleteState(address, key, { type: "any" });
          live.delete(key);
        } else if (live.has(key)) {
          await store.touch(address, key, step);
        }
      }
    };
    await randomSteps(0, 4000);
    const isLeaf = (key: string, prefix: string) =>
      key.startsWith(prefix) && !key.includes("/", prefix.lastIndexOf("/") + 1);
    // The first leaf read builds the leaf indexes (and pages cache chunk snapshots): later inserts,
    // deletes, updates and touches must reach both.
    await store.list(address, { leaf: true, prefix: "a/" });
    await randomSteps(4000, 5500);
    for (const [key, step] of live) {
      if (next() < 0.5) continue;
      await store.putState(address, key, { step, again: true }, { type: "any" });
      await store.touch(address, key, step + 1);
    }
    const sorted = [...live.keys()].sort();
    for (const prefix of ["", "a", "a/", "a/b", "/", "//", "b/a/", "é", "%/", "\uFFFF/", "zz/"]) {
      const expected = sorted.filter((key) => isLeaf(key, prefix));
      expect(await store.count(address, prefix, { leaf: true })).toBe(expected.length);
      const page = await store.list(address, { prefix, leaf: true, offset: 1, limit: 5 });
      expect(page.total).toBe(expected.length);
      expect(page.items.map((item) => item.key)).toEqual(expected.slice(1, 6));
      for (const item of (await store.list(address, { prefix, leaf: true })).items) {
        const written = await store.getState(address, item.key);
        expect(item).toEqual(written);
      }
    }
  });

  it("refuses a prefix that is not a string, leaf or not", async () => {
    const store = createMemoryResourceStore();
    await expect(store.list(address, { prefix: 5 as never, leaf: true })).rejects.toThrow(TypeError);
    await expect(store.count(address, null as never, { leaf: true })).rejects.toThrow(TypeError);
  });

  it("reading an unknown scope creates nothing", async () => {
    const store = createMemoryResourceStore();
    const unknown: ScopeAddress = { scope: "org", scopeId: "nobody", bucket: "shared" };
    expect(await store.list(unknown)).toEqual({ items: [], total: 0 });
    expect(await store.count(unknown)).toBe(0);
    expect(await store.list(unknown, { leaf: true })).toEqual({ items: [], total: 0 });
    expect(await store.count(unknown, "", { leaf: true })).toBe(0);
    expect(await store.getContent(unknown, "k")).toBeNull();
    expect((await store.deleteState(unknown, "k", { type: "any" })).ok).toBe(true);
    expect(await store.putState(unknown, "k", {}, { type: "absent" })).toEqual({ ok: true, version: 1 });
  });
});
