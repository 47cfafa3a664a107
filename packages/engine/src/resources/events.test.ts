import { defineResource, defineResourceCollection, type FlowStores } from "@flowrt/core";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { createResourceScope } from "./resource-scope.js";
import { type ContextOptions, makeContext, rejection, STORE_FACTORIES } from "./testing/harness.js";

const schema = z.object({
  title: z.string().default(""),
  secret: z.string().default("s"),
  n: z.number().default(0),
});
const plainNotes = defineResourceCollection({ pattern: "notes/*", scope: "session", stateSchema: schema });
const liveNotes = defineResourceCollection({
  pattern: "live/*",
  scope: "session",
  stateSchema: schema,
  client: { expose: ["title"], live: true },
});
const liveSingle = defineResource({
  scope: "session",
  stateSchema: schema,
  client: { exclude: ["secret"], live: true },
});
const quietSingle = defineResource({ scope: "session", stateSchema: schema, client: { expose: ["title"] } });

describe.each(STORE_FACTORIES)("events and reactions ($name store)", (factory) => {
  let stores: FlowStores;
  let destroy: () => Promise<void>;
  beforeEach(async () => {
    ({ stores, destroy } = await factory.create());
  });
  afterEach(() => destroy());

  async function open(options: ContextOptions = {}) {
    const t = makeContext(stores, options);
    const scope = createResourceScope(t.ctx, { plainNotes, liveNotes, liveSingle, quietSingle });
    await scope.loadScopes();
    await scope.load();
    return { ...t, scope, h: scope.handles as Record<string, any> };
  }

  it("rule 1: collections announce every mutation (state writes, create, upsert, delete, content) without data unless live", async () => {
    const { h, events } = await open();
    const item = await h.plainNotes.create("a");
    await item.patchState({ title: "x" });
    await item.setState({ title: "y" });
    await item.updateState((s: any) => s);
    await item.incState({ n: 1 });
    await h.plainNotes.upsert("a", { n: 5 });
    await h.plainNotes.upsert("b", { n: 5 });
    await item.writeContent("body");
    await h.plainNotes.delete("a");
    expect(events.map((e) => [e.type, e.data.change, e.data.topic])).toEqual([
      ["resource_change", "created", "notes/a"],
      ["resource_change", "updated", "notes/a"],
      ["resource_change", "updated", "notes/a"],
      ["resource_change", "updated", "notes/a"],
      ["resource_change", "updated", "notes/a"],
      ["resource_change", "updated", "notes/a"],
      ["resource_change", "created", "notes/b"],
      ["resource_change", "content", "notes/a"],
      ["resource_change", "deleted", "notes/a"],
    ]);
    expect(events[0]?.data).toEqual({
      scope: "session",
      ref: "plainNotes",
      kind: "collection",
      topic: "notes/a",
      change: "created",
    });
    expect(events.every((e) => !("clientData" in e.data))).toBe(true);
  });

  it("rule 2: a live single resource announces state writes with projected clientData and content writes with none", async () => {
    const { h, events } = await open();
    await h.liveSingle.patchState({ title: "t", secret: "hidden" });
    await h.liveSingle.writeContent("body");
    expect(events).toEqual([
      {
        type: "resource_change",
        data: {
          scope: "session",
          ref: "liveSingle",
          kind: "single",
          change: "updated",
          clientData: { title: "t", n: 0 },
        },
      },
      {
        type: "resource_change",
        data: { scope: "session", ref: "liveSingle", kind: "single", change: "content" },
      },
    ]);
  });

  it("rule 3: a non-live single resource emits no change events", async () => {
    const { h, events } = await open();
    await h.quietSingle.patchState({ title: "t" });
    await h.quietSingle.writeContent("x");
    expect(events).toEqual([]);
  });

  it("rule 4: live collection items stream projected clientData (never content); a delete marks the item gone", async () => {
    const { h, events } = await open();
    const item = await h.liveNotes.create("a", { title: "A" });
    await item.incState({ n: 1 });
    await item.writeContent("secret body");
    await h.liveNotes.delete("a");
    expect(events.map((e) => e.data)).toEqual([
      {
        scope: "session",
        ref: "liveNotes",
        kind: "collection",
        topic: "live/a",
        change: "created",
        clientData: { title: "A" },
      },
      {
        scope: "session",
        ref: "liveNotes",
        kind: "collection",
        topic: "live/a",
        change: "updated",
        clientData: { title: "A" },
      },
      { scope: "session", ref: "liveNotes", kind: "collection", topic: "live/a", change: "content" },
      { scope: "session", ref: "liveNotes", kind: "collection", topic: "live/a", change: "deleted" },
    ]);
  });

  it("refused writes emit nothing", async () => {
    const { h, events, reactions } = await open();
    const item = await h.liveNotes.create("a");
    events.length = 0;
    reactions.length = 0;
    await rejection(item.incState({ title: 1 }));
    await rejection(h.liveSingle.patchState({ n: "x" }));
    await rejection(h.liveNotes.create("a"));
    expect(events).toEqual([]);
    expect(reactions).toEqual([]);
  });

  it("state_change carries the scope's client projection (expose verbatim, derived computed), never raw state", async () => {
    const { scope, events } = await open({
      flow: {
        session: {
          stateSchema: z.object({ count: z.number().default(0), token: z.string().default("t") }),
          client: { expose: ["count"], derived: { double: (s: { count: number }) => s.count * 2 } },
        },
      },
    });
    await scope.scopes.session.incState({ count: 2 });
    await scope.scopes.session.patchState({ token: "private" });
    expect(events).toEqual([
      { type: "state_change", data: { scope: "session", clientData: { count: 2, double: 4 } } },
      { type: "state_change", data: { scope: "session", clientData: { count: 2, double: 4 } } },
    ]);
  });

  it("a scope without a client block emits no state_change", async () => {
    const { scope, events } = await open();
    await scope.scopes.user.patchState({ a: 1 });
    expect(events).toEqual([]);
  });

  it("outside a request (emit is a no-op) writes still succeed", async () => {
    const { h, events } = await open({ noRequest: true });
    await (await h.liveNotes.create("a")).incState({ n: 1 });
    expect(events).toEqual([]);
    expect((await h.liveNotes.get("a")).state.n).toBe(1);
  });

  it("reactTo: every committed change (contentUpdated included) reaches runReaction inside the turn, before the write returns", async () => {
    const { h, reactions } = await open();
    await h.quietSingle.patchState({ title: "t" });
    expect(reactions).toHaveLength(1);
    await h.quietSingle.writeContent("x");
    const item = await h.plainNotes.create("a");
    await item.writeContent("y");
    expect(reactions.map((r) => [r.ref, r.kind, r.change, r.uri])).toEqual([
      ["quietSingle", "single", "updated", "session/quietSingle"],
      ["quietSingle", "single", "content", "session/quietSingle"],
      ["plainNotes", "collection", "created", "session/notes/a"],
      ["plainNotes", "collection", "content", "session/notes/a"],
    ]);
    expect(reactions[0]?.state).toMatchObject({ title: "t" });
  });
});
