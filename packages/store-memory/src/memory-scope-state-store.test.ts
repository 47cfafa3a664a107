import { describe, expect, it } from "vitest";
import { createMemoryScopeStateStore } from "./memory-scope-state-store.js";

describe("memory scope state store", () => {
  const address = { scope: "user", scopeId: "u:1", bucket: "shared" } as const;

  it("keeps addresses apart however their parts are split", async () => {
    const store = createMemoryScopeStateStore();
    await store.put({ scope: "user", scopeId: "a", bucket: "bc" }, { n: 1 }, { type: "absent" });
    expect(await store.get({ scope: "user", scopeId: "ab", bucket: "c" })).toBeNull();
    expect(await store.get({ scope: "org", scopeId: "a", bucket: "bc" })).toBeNull();
    expect(await store.get({ scope: "user", scopeId: "a", bucket: "bc" })).toEqual({
      value: { n: 1 },
      version: 1,
    });
  });

  it("refuses state JSON cannot hold and writes nothing", async () => {
    const store = createMemoryScopeStateStore();
    await expect(store.put(address, { n: Number.NaN }, { type: "any" })).rejects.toThrow(/not JSON/);
    await expect(store.put(address, { f: (() => 1) as never }, { type: "any" })).rejects.toThrow(/not JSON/);
    expect(await store.get(address)).toBeNull();
    const state = { list: [1] };
    expect(await store.put(address, state, { type: "absent" })).toEqual({ ok: true, version: 1 });
    state.list.push(2);
    const read = await store.get(address);
    (read!.value.list as number[]).push(3);
    expect(await store.get(address)).toEqual({ value: { list: [1] }, version: 1 });
    const lost = await store.put(address, {}, { type: "version", version: 9 });
    expect(lost).toEqual({ ok: false, current: { value: { list: [1] }, version: 1 } });
  });
});

describe("memory scope state store: removeScope", () => {
  it("refuses the session scope and counts what the resource hook reports", async () => {
    const store = createMemoryScopeStateStore(undefined, () => ({ resources: 2, contents: 1 }));
    await store.put({ scope: "user", scopeId: "u", bucket: "shared" }, { n: 1 }, { type: "absent" });
    await store.put({ scope: "user", scopeId: "u", bucket: "flow" }, { n: 1 }, { type: "absent" });
    await expect(store.removeScope("session" as never, "u")).rejects.toThrow(/sessions.remove/);
    expect(await store.removeScope("user", "u")).toEqual({ states: 2, resources: 2, contents: 1 });
    expect(await store.get({ scope: "user", scopeId: "u", bucket: "flow" })).toBeNull();
  });
});
