import { defineResourceCollection, type FlowStores, SHARED_BUCKET } from "@flowrt/core";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { createResourceScope } from "./resource-scope.js";
import { makeContext, rejection, STORE_FACTORIES } from "./testing/harness.js";

const address = { scope: "session" as const, scopeId: "s1", bucket: SHARED_BUCKET };
const schema = z.object({
  title: z.string().default(""),
  n: z.number().default(0),
  tag: z.string().optional(),
});

describe.each(STORE_FACTORIES)("collections ($name store)", (factory) => {
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
    return { ...t, scope, h: scope.handles as Record<string, any> };
  }
  const stored = async (key: string) => (await stores.resources.getState(address, key))?.state ?? null;
  const notes = defineResourceCollection({ pattern: "notes/*", scope: "session", stateSchema: schema });

  it("create creates when missing and throws when the key exists (nothing changed)", async () => {
    const { h, events } = await open({ notes });
    const made = await h.notes.create("a", { title: "A" });
    expect(made.state).toEqual({ title: "A", n: 0 });
    events.length = 0;
    expect((await rejection(h.notes.create("a", { title: "B" }))).code).toBe("topic-exists");
    expect(await stored("notes/a")).toEqual({ title: "A", n: 0 });
    expect(events).toEqual([]);
  });

  it("create with replace replaces an existing instance with setState semantics (defaults fill) and creates a missing one", async () => {
    const { h } = await open({ notes });
    await h.notes.create("a", { title: "A", n: 4, tag: "t" });
    await h.notes.create("a", { title: "B" }, { replace: true });
    expect(await stored("notes/a")).toEqual({ title: "B", n: 0 });
    await h.notes.create("b", { n: 1 }, { replace: true });
    expect(await stored("notes/b")).toEqual({ title: "", n: 1 });
  });

  it("create refuses a state that violates stateSchema and stores nothing", async () => {
    const { h, events } = await open({ notes });
    expect((await rejection(h.notes.create("a", { n: "x" }))).code).toBe("resource-write-refused");
    expect(await stored("notes/a")).toBeNull();
    expect(events).toEqual([]);
  });

  it("get returns an instance and throws instance-not-found when missing; getOptional returns null", async () => {
    const { h } = await open({ notes });
    await h.notes.create("a");
    expect((await h.notes.get("a")).path).toBe("notes/a");
    expect((await h.notes.get("notes/a")).path).toBe("notes/a");
    expect((await rejection(h.notes.get("zz"))).code).toBe("instance-not-found");
    expect(await h.notes.getOptional("zz")).toBeNull();
  });

  it("getOrCreate returns an existing instance as-is and creates a missing one from init", async () => {
    const { h } = await open({ notes });
    await h.notes.create("a", { title: "A" });
    expect((await h.notes.getOrCreate("a", { title: "other" })).state.title).toBe("A");
    expect((await h.notes.getOrCreate("b", { title: "B" })).state.title).toBe("B");
    expect(await stored("notes/b")).toEqual({ title: "B", n: 0 });
  });

  it("upsert patches an existing instance and creates a missing one with createOnly merged under update", async () => {
    const { h } = await open({ notes });
    await h.notes.upsert("a", { n: 1 }, { title: "created", n: 9 });
    expect(await stored("notes/a")).toEqual({ title: "created", n: 1 });
    await h.notes.upsert("a", { n: 2 }, { title: "ignored" });
    expect(await stored("notes/a")).toEqual({ title: "created", n: 2 });
  });

  it("list(prefix) returns instances in key order; count counts them; delete removes and a missing delete is a no-op", async () => {
    const { h, events } = await open({ notes });
    for (const k of ["b", "a", "ab", "c"]) await h.notes.create(k);
    expect((await h.notes.list()).map((i: any) => i.path)).toEqual([
      "notes/a",
      "notes/ab",
      "notes/b",
      "notes/c",
    ]);
    expect((await h.notes.list("a")).map((i: any) => i.path)).toEqual(["notes/a", "notes/ab"]);
    expect((await h.notes.list("notes/a")).map((i: any) => i.path)).toEqual(["notes/a", "notes/ab"]);
    expect(await h.notes.count()).toBe(4);
    await h.notes.delete("a");
    expect(await stored("notes/a")).toBeNull();
    events.length = 0;
    await h.notes.delete("never");
    expect(events).toEqual([]);
    expect(await h.notes.count()).toBe(3);
  });

  it("a key outside the pattern is refused with invalid-key and nothing is stored", async () => {
    const { h, events } = await open({ notes });
    expect((await rejection(h.notes.create("a/b"))).code).toBe("invalid-key");
    expect((await rejection(h.notes.create(""))).code).toBe("invalid-key");
    expect(await h.notes.count()).toBe(0);
    expect((await stores.resources.list(address, { prefix: "" })).total).toBe(0);
    expect(events).toEqual([]);
  });

  it("a collection lists only keys its pattern matches, even when another resource shares the prefix", async () => {
    const deep = defineResourceCollection({ pattern: "notes/**", scope: "session", stateSchema: schema });
    const { h } = await open({ notes, deep });
    await h.deep.create("x/y");
    await h.notes.create("a");
    expect((await h.notes.list()).map((i: any) => i.path)).toEqual(["notes/a"]);
    expect(await h.notes.count()).toBe(1);
    expect(await h.deep.count()).toBe(2);
  });

  it("[name] patterns take an object key", async () => {
    const topics = defineResourceCollection({
      pattern: "[topic]/notes",
      scope: "session",
      stateSchema: schema,
    });
    const { h, events } = await open({ topics });
    const made = await h.topics.create({ topic: "cats" }, { title: "c" });
    expect(made.path).toBe("cats/notes");
    expect((await h.topics.get({ topic: "cats" })).state.title).toBe("c");
    events.length = 0;
    expect((await rejection(h.topics.create({ nope: "x" }))).code).toBe("invalid-key");
    expect(await h.topics.count()).toBe(1);
    expect(events).toEqual([]);
  });

  it("maxInstances with eviction none throws collection-full at the cap and stores nothing", async () => {
    const capped = defineResourceCollection({
      pattern: "c/*",
      scope: "session",
      stateSchema: schema,
      maxInstances: 2,
    });
    const { h, events } = await open({ capped });
    await h.capped.create("a");
    await h.capped.create("b");
    events.length = 0;
    expect((await rejection(h.capped.create("c"))).code).toBe("collection-full");
    expect(await stored("c/c")).toBeNull();
    expect(events).toEqual([]);
    await h.capped.create("a", { n: 1 }, { replace: true });
    await h.capped.upsert("b", { n: 2 });
    expect(await h.capped.count()).toBe(2);
  });

  it("maxInstances holds under parallel creates of different keys, from one run and from two", async () => {
    const capped = defineResourceCollection({
      pattern: "c/*",
      scope: "session",
      stateSchema: schema,
      maxInstances: 2,
    });
    const first = await open({ capped });
    const second = await open({ capped }); // another request on the same session
    const outcomes = await Promise.allSettled(
      ["a", "b", "c", "d", "e", "f"].map((key, i) => (i % 2 ? first : second).h.capped.create(key)),
    );
    expect(outcomes.filter((o) => o.status === "fulfilled")).toHaveLength(2);
    for (const o of outcomes.filter((o) => o.status === "rejected"))
      expect((o as PromiseRejectedResult).reason.code).toBe("collection-full");
    expect(await stores.resources.count(address, "c/")).toBe(2);

    const evicting = defineResourceCollection({
      pattern: "e/*",
      scope: "session",
      stateSchema: schema,
      maxInstances: 2,
      eviction: "oldest",
    });
    const { h } = await open({ evicting });
    await Promise.all(["a", "b", "c", "d", "e"].map((key) => h.evicting.create(key)));
    expect(await stores.resources.count(address, "e/")).toBe(2);
  });

  it("maxInstances with eviction: a create of a live key is topic-exists with nothing evicted", async () => {
    const { h, events } = await open({ capped: cappedBy("oldest") });
    await h.capped.create("a");
    await h.capped.create("b");
    events.length = 0;
    expect((await rejection(h.capped.create("a", { n: 5 }))).code).toBe("topic-exists");
    expect(await paths(h.capped)).toEqual(["c/a", "c/b"]);
    expect(await stored("c/a")).toEqual({ title: "", n: 0 });
    expect(events).toEqual([]);
  });

  it("maxInstances with eviction under parallel creates from two runs: each victim is evicted and announced once", async () => {
    const first = await open({ capped: cappedBy("oldest") });
    const second = await open({ capped: cappedBy("oldest") });
    const keys = Array.from({ length: 12 }, (_, i) => `k${i}`);
    await Promise.all(keys.map((key, i) => (i % 2 ? first : second).h.capped.create(key)));
    const live = await paths(first.h.capped);
    expect(live).toHaveLength(2);
    const deleted = [...first.events, ...second.events]
      .filter((e) => e.data.change === "deleted")
      .map((e) => e.data.topic);
    expect(new Set(deleted).size).toBe(deleted.length);
    expect([...deleted, ...live].sort()).toEqual(keys.map((key) => `c/${key}`).sort());
  });

  it("maxInstances counts only the collection's own keys: a key equal to its prefix and other resources' keys take no room", async () => {
    const capped = defineResourceCollection({
      pattern: "c/*",
      scope: "session",
      stateSchema: schema,
      maxInstances: 2,
    });
    await stores.resources.putState(address, "c/", { single: true }, { type: "any" });
    await stores.resources.putState(address, "c/deeper/x", { other: true }, { type: "any" });
    const { h } = await open({ capped });
    await h.capped.create("a");
    await h.capped.create("b");
    expect(await h.capped.count()).toBe(2);
    expect((await rejection(h.capped.create("c"))).code).toBe("collection-full");
    expect(await stored("c/c")).toBeNull();

    // A pattern with a variable segment before the last shares the scope's keys with every other resource.
    const topics = defineResourceCollection({
      pattern: "[topic]/notes",
      scope: "session",
      stateSchema: schema,
      maxInstances: 2,
    });
    const other = await open({ topics });
    const outcomes = await Promise.allSettled(
      ["t1", "t2", "t3", "t4"].map((topic) => other.h.topics.create({ topic })),
    );
    expect(outcomes.filter((o) => o.status === "fulfilled")).toHaveLength(2);
    for (const o of outcomes.filter((o) => o.status === "rejected"))
      expect((o as PromiseRejectedResult).reason.code).toBe("collection-full");
    expect(await other.h.topics.count()).toBe(2);
  });

  it("a handle kept past a delete cannot write content, so a later create of the key starts without a body", async () => {
    const { h, events } = await open({ notes });
    const stale = await h.notes.create("d");
    await h.notes.delete("d");
    events.length = 0;
    expect((await rejection(stale.writeContent("ghost body"))).code).toBe("instance-not-found");
    expect(await stores.resources.getContent(address, "notes/d")).toBeNull();
    expect(events).toEqual([]);
    const again = await h.notes.create("d");
    expect(await again.readContentRaw()).toBeNull();
  });

  /** A `c/*` collection capped at 2 that evicts by `eviction`. */
  const cappedBy = (eviction: "lru" | "oldest") =>
    defineResourceCollection({
      pattern: "c/*",
      scope: "session",
      stateSchema: schema,
      maxInstances: 2,
      eviction,
    });

  /**
   * Runs each step at its own time (`from` s, then a second later each), so access and creation times are
   * distinct and ordered.
   */
  async function atTicks(steps: Array<() => Promise<unknown>>, from = 1): Promise<void> {
    vi.useFakeTimers({ toFake: ["Date"] });
    try {
      for (const [i, step] of steps.entries()) {
        vi.setSystemTime(1000 * (from + i));
        await step();
      }
    } finally {
      vi.useRealTimers();
    }
  }
  const paths = async (handle: { list(): Promise<{ path: string }[]> }) =>
    (await handle.list()).map((item) => item.path);

  it("maxInstances with eviction lru counts content reads and writes as accesses", async () => {
    const { h } = await open({ capped: cappedBy("lru") });
    let a: any;
    await atTicks([
      async () => {
        a = await h.capped.create("a");
      },
      () => h.capped.create("b"),
      () => a.readContent(), // a is now the more recently used
      () => h.capped.create("c"),
    ]);
    expect(await paths(h.capped)).toEqual(["c/a", "c/c"]);
    await atTicks(
      [
        () => a.writeContent("body"), // c is now the least recently used
        () => h.capped.create("d"),
      ],
      5,
    );
    expect(await paths(h.capped)).toEqual(["c/a", "c/d"]);
  });

  it("maxInstances with eviction oldest evicts the first created, announcing the delete", async () => {
    const { h, events } = await open({ capped: cappedBy("oldest") });
    await atTicks([
      () => h.capped.create("b"),
      () => h.capped.create("a"),
      async () => (await h.capped.get("b")).incState({ n: 1 }),
      () => h.capped.create("c"),
    ]);
    expect(await paths(h.capped)).toEqual(["c/a", "c/c"]);
    expect(events.filter((e) => e.data.change === "deleted").map((e) => e.data.topic)).toEqual(["c/b"]);
  });

  it("maxInstances with eviction lru evicts the least recently accessed", async () => {
    const { h } = await open({ capped: cappedBy("lru") });
    await atTicks([
      () => h.capped.create("a"),
      () => h.capped.create("b"),
      () => h.capped.get("a"),
      () => h.capped.create("c"),
    ]);
    expect(await paths(h.capped)).toEqual(["c/a", "c/c"]);
  });

  it("onInstanceCreated/Updated/Deleted hooks run with ctx.log and ctx.scopeType", async () => {
    const calls: unknown[] = [];
    const hooked = defineResourceCollection({
      pattern: "h/*",
      scope: "session",
      stateSchema: schema,
      onInstanceCreated: (key, state, ctx) => {
        calls.push(["created", key, state.n, ctx.scopeType]);
        ctx.log(`made ${key}`);
      },
      onInstanceUpdated: (key, state, prev) => calls.push(["updated", key, state.n, prev.n]),
      onInstanceDeleted: (key, ctx) => calls.push(["deleted", key, ctx.scopeType]),
    });
    const { h, logs } = await open({ hooked });
    const item = await h.hooked.create("a", { n: 1 });
    await item.incState({ n: 1 });
    await h.hooked.delete("a");
    expect(calls).toEqual([
      ["created", "h/a", 1, "session"],
      ["updated", "h/a", 2, 1],
      ["deleted", "h/a", "session"],
    ]);
    expect(logs.some((l) => l.message === "made h/a")).toBe(true);
  });

  it("a hook that is async anyway (its promise rejects) is logged like a throw, never an unhandled rejection", async () => {
    const asyncHooked = defineResourceCollection({
      pattern: "ah/*",
      scope: "session",
      stateSchema: schema,
      onInstanceCreated: (async () => {
        throw new Error("async hook failed");
      }) as never,
    });
    const { h, logs } = await open({ asyncHooked });
    await h.asyncHooked.create("a", { n: 1 });
    await new Promise((resolve) => setImmediate(resolve));
    expect(logs).toContainEqual({
      level: "error",
      message: 'onInstanceCreated hook of "asyncHooked" threw',
      data: { error: "async hook failed" },
    });
    expect(await h.asyncHooked.getOptional("a")).not.toBeNull();
  });

  it("prefetchMode eager lists a flow-level collection at load; lazy reads per key access", async () => {
    const lazyNotes = defineResourceCollection({
      pattern: "notes/*",
      scope: "session",
      stateSchema: schema,
      prefetchMode: "lazy",
    });
    const seed = await open({ notes });
    await seed.h.notes.create("a", { n: 1 });
    const eager = makeContext(stores);
    const eagerScope = createResourceScope(eager.ctx, { notes });
    const listSpy = vi.spyOn(stores.resources, "list");
    const getSpy = vi.spyOn(stores.resources, "getState");
    await eagerScope.load();
    expect(listSpy).toHaveBeenCalledTimes(1);
    await eagerScope.handles.notes.get("a");
    expect(getSpy).not.toHaveBeenCalled();
    listSpy.mockClear();
    const lazy = createResourceScope(makeContext(stores).ctx, { notes: lazyNotes });
    await lazy.load();
    expect(listSpy).not.toHaveBeenCalled();
    expect((await lazy.handles.notes.get("a")).state.n).toBe(1);
    expect(getSpy).toHaveBeenCalledTimes(1);
    listSpy.mockRestore();
    getSpy.mockRestore();
  });

  it("action-level declarations load when the action runs; flow-level declarations take priority", async () => {
    const other = defineResourceCollection({ pattern: "other/*", scope: "session", stateSchema: schema });
    const t = makeContext(stores);
    const scope = createResourceScope(t.ctx, { notes });
    scope.declare({ notes: other, extra: other });
    expect(scope.definition("notes")).toBe(notes);
    const listSpy = vi.spyOn(stores.resources, "list");
    await scope.load(["extra"]);
    expect(listSpy).toHaveBeenCalledTimes(1);
    listSpy.mockRestore();
  });

  it("instance content is stored in its own row; readContent of an item without a row is null", async () => {
    const { h } = await open({ notes });
    const item = await h.notes.create("a");
    expect(await item.readContent()).toBeNull();
    await item.writeContent("body");
    expect(await stores.resources.getContent(address, "notes/a")).toBe("body");
    await h.notes.delete("a");
    expect(await stores.resources.getContent(address, "notes/a")).toBeNull();
  });
  it("a `*` collection lists and counts only its own keys when deeper keys share its prefix", async () => {
    const deep = defineResourceCollection({ pattern: "notes/**", scope: "session", stateSchema: schema });
    const { h } = await open({ notes, deep });
    // "-" and "." sort before "/", so the deeper keys fall between the collection's own.
    for (const key of ["a", "a-b", "a.c", "b"]) await h.notes.create(key);
    for (const key of ["a/x", "a-b/y/z", "b/c"]) await h.deep.create(key);
    expect((await h.notes.list()).map((i: { path: string }) => i.path)).toEqual([
      "notes/a",
      "notes/a-b",
      "notes/a.c",
      "notes/b",
    ]);
    expect(await h.notes.count()).toBe(4);
    expect(await h.deep.count()).toBe(7);
  });
});
