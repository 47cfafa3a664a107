import { defineResourceCollection, type FlowStores, SHARED_BUCKET } from "@flowrt/core";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { createClientResourceApi } from "./client-api.js";
import { createResourceScope } from "./resource-scope.js";
import { makeContext, STORE_FACTORIES } from "./testing/harness.js";

const address = { scope: "session" as const, scopeId: "s1", bucket: SHARED_BUCKET };
const schema = z.object({ n: z.number().default(0) });

/** A collection whose hooks record what they are called with, and the key every event names. */
function hooked(pattern: string, options: { maxInstances?: number; eviction?: "lru" | "oldest" } = {}) {
  const calls: [string, string][] = [];
  const def = defineResourceCollection({
    pattern,
    scope: "session",
    stateSchema: schema,
    ...options,
    client: { state: { read: true }, content: { create: true, delete: true } },
    onInstanceCreated: (key) => calls.push(["created", key]),
    onInstanceUpdated: (key) => calls.push(["updated", key]),
    onInstanceDeleted: (key) => calls.push(["deleted", key]),
  });
  return { def, calls };
}

const topics = (events: { type: string; data: Record<string, unknown> }[]) =>
  events.filter((e) => e.type === "resource_change").map((e) => [e.data.change, e.data.topic]);

describe.each(STORE_FACTORIES)(
  "collection hooks name items by their full storage key ($name store)",
  (factory) => {
    let stores: FlowStores;
    let destroy: () => Promise<void>;
    beforeEach(async () => {
      ({ stores, destroy } = await factory.create());
    });
    afterEach(() => destroy());

    async function open(declarations: Record<string, any>) {
      const t = makeContext(stores);
      const scope = createResourceScope(t.ctx, declarations);
      await scope.load();
      return { ...t, h: scope.handles as Record<string, any> };
    }

    it("create, update and delete through a handle pass `notes/a`, the key the events name", async () => {
      const { def, calls } = hooked("notes/*");
      const { h, events } = await open({ notes: def });
      const item = await h.notes.create("a", { n: 1 });
      await item.incState({ n: 1 });
      await h.notes.upsert("notes/a", { n: 5 });
      await h.notes.delete("a");
      expect(calls).toEqual([
        ["created", "notes/a"],
        ["updated", "notes/a"],
        ["updated", "notes/a"],
        ["deleted", "notes/a"],
      ]);
      expect(topics(events)).toEqual([
        ["created", "notes/a"],
        ["updated", "notes/a"],
        ["updated", "notes/a"],
        ["deleted", "notes/a"],
      ]);
    });

    it("a [name] pattern's hooks get the storage key string, not the parameters object", async () => {
      const { def, calls } = hooked("[topic]/jobs/[job]");
      const { h } = await open({ jobs: def });
      const item = await h.jobs.create({ topic: "t1", job: "j1" });
      await item.patchState({ n: 2 });
      await h.jobs.delete({ topic: "t1", job: "j1" });
      expect(calls).toEqual([
        ["created", "t1/jobs/j1"],
        ["updated", "t1/jobs/j1"],
        ["deleted", "t1/jobs/j1"],
      ]);
    });

    it("a deep pattern's hooks get the whole path", async () => {
      const { def, calls } = hooked("files/**");
      const { h } = await open({ files: def });
      await h.files.create("src/a.ts");
      await h.files.delete("files/src/a.ts");
      expect(calls).toEqual([
        ["created", "files/src/a.ts"],
        ["deleted", "files/src/a.ts"],
      ]);
    });

    it("an eviction's onInstanceDeleted gets the evicted item's full key", async () => {
      const { def, calls } = hooked("cap/*", { maxInstances: 2, eviction: "oldest" });
      const { h, events } = await open({ cap: def });
      await h.cap.create("a");
      await h.cap.create("b");
      await h.cap.create("c");
      expect(calls).toEqual([
        ["created", "cap/a"],
        ["created", "cap/b"],
        ["deleted", "cap/a"],
        ["created", "cap/c"],
      ]);
      expect(topics(events)).toContainEqual(["deleted", "cap/a"]);
      expect(await stores.resources.getState(address, "cap/a")).toBeNull();
    });

    it("client creates and deletes pass the full key whichever form the topic was given in", async () => {
      const { def, calls } = hooked("notes/*");
      const api = createClientResourceApi(makeContext(stores).ctx, { notes: def });
      await api.createItem("notes", { topic: "a" });
      await api.createItem("notes", { topic: "notes/b" });
      await api.deleteItem("notes", "notes/a");
      await api.deleteItem("notes", "b");
      expect(calls).toEqual([
        ["created", "notes/a"],
        ["created", "notes/b"],
        ["deleted", "notes/a"],
        ["deleted", "notes/b"],
      ]);
    });
  },
);
