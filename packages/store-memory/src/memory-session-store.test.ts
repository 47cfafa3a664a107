import type { SessionRecord } from "@flowrt/core";
import { describe, expect, it } from "vitest";
import { createMemorySessionStore } from "./memory-session-store.js";

const session = (overrides: Partial<SessionRecord> = {}): SessionRecord => ({
  id: "s1",
  flowId: "f",
  flowKind: "f",
  userId: "u",
  rootSessionId: "s1",
  metadata: { tags: ["a"] },
  createdAt: "2024-01-01T00:00:00.000Z",
  ...overrides,
});

describe("memory session store", () => {
  it("keeps nothing of an update's metadata the caller mutates afterwards", async () => {
    const store = createMemorySessionStore();
    await store.create(session());
    const metadata = { tags: ["b"] };
    const updated = await store.update("s1", { title: "T", metadata });
    metadata.tags.push("c");
    updated!.metadata.extra = true;
    expect(await store.get("s1")).toEqual(session({ title: "T", metadata: { tags: ["b"] } }));
  });

  it("refuses a session whose indexed fields are not strings, and stores nothing", async () => {
    const store = createMemorySessionStore();
    await expect(store.create(session({ createdAt: 5 as never }))).rejects.toThrow(/createdAt/);
    await expect(store.create(session({ orgId: {} as never }))).rejects.toThrow(/orgId/);
    await expect(store.create(session({ metadata: null as never }))).rejects.toThrow(/metadata/);
    await expect(store.create(session({ metadata: { n: 1n } as never }))).rejects.toThrow(/not JSON/);
    expect(await store.get("s1")).toBeNull();
    expect(await store.list({ userId: "u" })).toEqual({ items: [], total: 0 });
    await store.create(session());
    await expect(store.update("s1", { title: 3 as never })).rejects.toThrow(/title/);
    expect(await store.get("s1")).toEqual(session());
  });

  it("lists by org and flow, newest first, parsing each page item afresh", async () => {
    const store = createMemorySessionStore();
    await store.create(session({ id: "a", orgId: "o", createdAt: "2024-01-01T00:00:01.000Z" }));
    await store.create(session({ id: "b", orgId: "o", flowId: "g", createdAt: "2024-01-01T00:00:02.000Z" }));
    await store.create(session({ id: "c", createdAt: "2024-01-01T00:00:03.000Z" }));
    expect((await store.list({ orgId: "o" })).items.map((s) => s.id)).toEqual(["b", "a"]);
    const page = await store.list({ userId: "u", flowIds: ["f"], limit: 1 });
    expect(page.total).toBe(2);
    expect(page.items.map((s) => s.id)).toEqual(["c"]);
    (page.items[0]!.metadata.tags as string[]).push("z");
    expect((await store.get("c"))!.metadata).toEqual({ tags: ["a"] });
  });
});

describe("memory session store: lifecycle", () => {
  it("keeps the ephemeral mark in step with a metadata patch, and refuses a bad patch writing nothing", async () => {
    const removed: string[] = [];
    const store = createMemorySessionStore({ onRetired: (id) => removed.push(id) });
    await store.create(session({ metadata: { ephemeral: true, n: 1 } }));
    store.requestStored("s1");
    await store.update("s1", { metadataPatch: { ephemeral: null } });
    store.requestRemoved("s1");
    expect(removed).toEqual([]);
    expect(await store.get("s1")).toEqual(session({ metadata: { n: 1 } }));

    store.requestStored("s1");
    await store.update("s1", { metadataPatch: { ephemeral: true } });
    store.requestRemoved("s1");
    expect(removed).toEqual(["s1"]);
    expect(await store.get("s1")).toBeNull();

    await store.create(session({ id: "s2" }));
    await expect(store.update("s2", { metadataPatch: [] as never })).rejects.toThrow(/metadataPatch/);
    await expect(store.update("s2", { metadataPatch: { n: 1n } as never })).rejects.toThrow(/not JSON/);
    await expect(store.update("s2", { title: 5 as never, metadataPatch: { a: 1 } })).rejects.toThrow(/title/);
    expect(await store.get("s2")).toEqual(session({ id: "s2" }));
  });

  it("treats __proto__ in a metadata patch as a plain key", async () => {
    const store = createMemorySessionStore();
    await store.create(session());
    const patch = JSON.parse('{"__proto__": {"polluted": true}, "a": 1}');
    const updated = await store.update("s1", { metadataPatch: patch });
    expect(Object.keys(updated!.metadata)).toEqual(["tags", "__proto__", "a"]);
    expect(({} as { polluted?: boolean }).polluted).toBeUndefined();
    expect((updated!.metadata as { polluted?: boolean }).polluted).toBeUndefined();
  });

  it("counts only matching sessions in total once one is marked deleting", async () => {
    const store = createMemorySessionStore();
    for (const id of ["a", "b", "c"])
      await store.create(session({ id, createdAt: `2024-01-0${id === "a" ? 1 : id === "b" ? 2 : 3}` }));
    expect(await store.markDeleting("b")).toBe(true);
    const all = await store.list({});
    expect(all.total).toBe(2);
    expect(all.items.map((s) => s.id)).toEqual(["c", "a"]);
    expect((await store.list({ userId: "u", offset: 1 })).items.map((s) => s.id)).toEqual(["a"]);
    await store.remove("b");
    expect((await store.list({ userId: "u" })).total).toBe(2);
    expect(await store.markDeleting("b")).toBe(false);
  });

  it("removes through its hook, in one step with the record, and counts what the hook reports", async () => {
    const calls: string[] = [];
    const store = createMemorySessionStore({
      removeParts: (id) => {
        calls.push(id);
        return { requests: 2, events: 5, states: 1, resources: 3, contents: 1 };
      },
    });
    await store.create(session());
    expect(await store.remove("s1")).toEqual({
      requests: 2,
      events: 5,
      states: 1,
      resources: 3,
      contents: 1,
    });
    expect(await store.remove("s1")).toBeNull();
    expect(calls).toEqual(["s1"]);
    expect(await store.get("s1")).toBeNull();
    expect(await store.list({ userId: "u" })).toEqual({ items: [], total: 0 });
  });

  it("refuses a malformed list position", async () => {
    const store = createMemorySessionStore();
    await expect(store.list({ after: { createdAt: 1, id: "a" } as never })).rejects.toThrow(/createdAt/);
    await expect(store.list({ after: "a" as never })).rejects.toThrow(/position/);
  });
});
