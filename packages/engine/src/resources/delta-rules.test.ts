import { defineResource, defineResourceCollection, type FlowStores, SHARED_BUCKET } from "@flowrt/core";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { createResourceScope } from "./resource-scope.js";
import { makeContext, rejection, STORE_FACTORIES } from "./testing/harness.js";

const address = { scope: "session" as const, scopeId: "s1", bucket: SHARED_BUCKET };

const counter = defineResource({
  scope: "session",
  stateSchema: z.object({
    n: z.number().nullable().default(0),
    m: z.number().nullable().default(0),
    word: z.string().default("w"),
    list: z.array(z.number()).nullable().default([]),
    small: z.number().max(10).default(0),
  }),
  client: { expose: ["n"], live: true },
});
const notes = defineResourceCollection({
  pattern: "notes/*",
  scope: "session",
  stateSchema: z.object({ n: z.number().default(0) }).catchall(z.any()),
});

describe.each(STORE_FACTORIES)("delta rules ($name store)", (factory) => {
  let stores: FlowStores;
  let destroy: () => Promise<void>;
  beforeEach(async () => {
    ({ stores, destroy } = await factory.create());
  });
  afterEach(() => destroy());

  async function open() {
    const t = makeContext(stores);
    const scope = createResourceScope(t.ctx, { counter, notes });
    await scope.load();
    return { ...t, h: scope.handles as Record<string, any> };
  }
  const stored = async () => (await stores.resources.getState(address, "counter"))?.state;

  it("an absent or null field is empty: incState starts from 0, pushState from []", async () => {
    const { h } = await open();
    await h.counter.setState({ n: null, list: null });
    await h.counter.incState({ n: 3 });
    await h.counter.pushState("list", 1);
    expect(await stored()).toMatchObject({ n: 3, list: [1] });
  });

  it("incState on a wrong-typed field refuses with resource_delta_refused, retryable false and the exact message", async () => {
    const { h, events } = await open();
    await h.counter.patchState({ n: 1 });
    events.length = 0;
    const error = await rejection(h.counter.incState({ word: 1 }));
    expect(error).toMatchObject({
      code: "resource_delta_refused",
      retryable: false,
      message: 'Resource "counter" incState target "word" is not a number (got string)',
    });
    expect(events).toEqual([]);
  });

  it("pushState on a wrong-typed field refuses with the exact message", async () => {
    const { h } = await open();
    const error = await rejection(h.counter.pushState("word", 1));
    expect(error).toMatchObject({
      code: "resource_delta_refused",
      retryable: false,
      message: 'Resource "counter" pushState target "word" is not an array (got string)',
    });
    expect(await stored()).toBeUndefined();
  });

  it("all-or-nothing: one wrong-typed field in a multi-field incState applies none", async () => {
    const { h, events } = await open();
    await h.counter.patchState({ n: 1, m: 1 });
    events.length = 0;
    await rejection(h.counter.incState({ n: 1, word: 1, m: 1 }));
    expect(await stored()).toMatchObject({ n: 1, m: 1 });
    expect(events).toEqual([]);
  });

  it("a non-finite result is refused and nothing is stored", async () => {
    const { h, events } = await open();
    await h.counter.patchState({ n: Number.MAX_VALUE });
    events.length = 0;
    expect((await rejection(h.counter.incState({ n: Number.MAX_VALUE }))).code).toBe(
      "resource_delta_refused",
    );
    expect((await stored())?.n).toBe(Number.MAX_VALUE);
    expect(events).toEqual([]);
  });

  it("a schema-violating result throws and stores nothing (no event)", async () => {
    const { h, events } = await open();
    expect((await rejection(h.counter.incState({ small: 11 }))).code).toBe("resource-write-refused");
    expect(await stored()).toBeUndefined();
    expect(events).toEqual([]);
  });

  it("field names such as constructor or __proto__ are ordinary data", async () => {
    const { h } = await open();
    const item = await h.notes.create("a");
    await item.incState({ constructor: 2 });
    await item.patchState(JSON.parse('{"__proto__": {"polluted": true}}'));
    const state = (await stores.resources.getState(address, "notes/a"))?.state as Record<string, unknown>;
    expect(Object.hasOwn(state, "constructor") && state.constructor).toBe(2);
    expect(Object.hasOwn(state, "__proto__")).toBe(true);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it("two request contexts racing on one key: both increments land", async () => {
    const a = await open();
    const b = await open();
    await Promise.all([a.h.counter.incState({ n: 1 }), b.h.counter.incState({ n: 1 })]);
    expect((await stored())?.n).toBe(2);
    const ia = await a.h.notes.create("x");
    const ib = await b.h.notes.get("x");
    await Promise.all(Array.from({ length: 5 }, () => [ia.incState({ n: 1 }), ib.incState({ n: 1 })]).flat());
    expect((await stores.resources.getState(address, "notes/x"))?.state.n).toBe(10);
  });
});
