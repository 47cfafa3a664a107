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

  it("reading an unknown scope creates nothing", async () => {
    const store = createMemoryResourceStore();
    const unknown: ScopeAddress = { scope: "org", scopeId: "nobody", bucket: "shared" };
    expect(await store.list(unknown)).toEqual({ items: [], total: 0 });
    expect(await store.count(unknown)).toBe(0);
    expect(await store.getContent(unknown, "k")).toBeNull();
    expect((await store.deleteState(unknown, "k", { type: "any" })).ok).toBe(true);
    expect(await store.putState(unknown, "k", {}, { type: "absent" })).toEqual({ ok: true, version: 1 });
  });
});
