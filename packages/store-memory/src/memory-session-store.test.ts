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
