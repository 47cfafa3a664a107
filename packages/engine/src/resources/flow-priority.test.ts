import { defineFlow, defineResource, type FlowStores, handler, router, sequencer } from "@flowrt/core";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { headerCaller, settle, withHost } from "../testing/fixtures.js";
import { createResourceScope } from "./resource-scope.js";
import { makeContext, STORE_FACTORIES } from "./testing/harness.js";

// Specification, loading semantics 1: "Flow-level declarations take priority over block-level ones."
const flowDoc = defineResource({
  scope: "session",
  content: "from the flow",
  stateSchema: z.object({ by: z.string().default("flow") }),
  client: { content: { read: true } },
});
const blockDoc = defineResource({
  scope: "session",
  content: "from the block",
  stateSchema: z.object({ by: z.string().default("block") }),
  prefetchMode: "lazy",
});

const reads = handler({
  name: "reads",
  resources: { doc: blockDoc },
  execute: async (_input, ctx) => {
    const doc = ctx.resources.doc;
    await doc.patchState({ by: `${doc.state.by}, written by the block` });
    return { content: await doc.readContent(), state: doc.state };
  },
});

describe.each(STORE_FACTORIES)("flow-level declarations take priority ($name store)", (factory) => {
  let stores: FlowStores;
  let destroy: () => Promise<void>;
  beforeEach(async () => {
    ({ stores, destroy } = await factory.create());
  });
  afterEach(() => destroy());

  it("a request scope keeps the flow's definition when a block declares the accessor again", async () => {
    const { ctx } = makeContext(stores);
    const scope = createResourceScope(ctx, { doc: flowDoc });
    scope.declare({ doc: blockDoc, other: blockDoc });
    expect(scope.definition("doc")).toBe(flowDoc);
    expect(scope.definition("other")).toBe(blockDoc);
    await scope.load();
    expect(await scope.handles.doc.readContent()).toBe("from the flow");
    expect(scope.handles.doc.state).toEqual({ by: "flow" });
  });
});

describe("a block that declares an accessor the flow declares", () => {
  const flow = defineFlow({
    kind: "priority",
    authentication: { requireUser: false, defaultUserId: "u1" },
    resources: { doc: flowDoc },
    actions: { read: sequencer({ name: "outer", steps: [reads] }) },
  });

  it("is accepted at definition time and gets the flow-level resource at runtime, in the client API too", async () => {
    await withHost({ flows: [flow] }, async (host, stores) => {
      const { request, session } = await host.invoke("priority", "read", headerCaller(), {});
      const { record } = await settle(host, request.id);
      expect(record.status).toBe("completed");
      expect(record.output).toEqual({
        content: "from the flow",
        state: { by: "flow, written by the block" },
      });
      const address = { scope: "session" as const, scopeId: session.id, bucket: "shared" };
      expect((await stores.resources.getState(address, "doc"))?.state).toEqual({
        by: "flow, written by the block",
      });
      const api = await host.resourceApi(session.id, headerCaller());
      expect(await api.readContent("doc")).toEqual({ content: "from the flow" });
      const manifest = await host.manifest(session.id);
      expect(manifest.resources).toEqual([
        expect.objectContaining({ ref: "doc", kind: "single", client: { content: { read: true } } }),
      ]);
    });
  });
});

// Specification, loading semantics 1: "action-level resources (declared inside a dispatched action's block tree)
// load when that action runs … A `lazy` single resource loads when the block declaring it dispatches."
describe("when action-level resources load", () => {
  const state = z.object({ v: z.number().default(0) });
  const early = defineResource({ scope: "session", stateSchema: state });
  const branch = defineResource({ scope: "session", stateSchema: state });
  const late = defineResource({ scope: "session", stateSchema: state, prefetchMode: "lazy" });
  const trace: string[] = [];
  const mark = (name: string) =>
    handler({
      name,
      execute: async () => {
        trace.push(`run ${name}`);
        return {};
      },
    });
  const usesEarly = handler({
    name: "usesEarly",
    resources: { early },
    execute: async () => trace.push("run usesEarly"),
  });
  const usesLate = handler({
    name: "usesLate",
    resources: { late },
    execute: async () => trace.push("run usesLate"),
  });
  const untaken = handler({ name: "untaken", resources: { branch }, execute: async () => 0 });
  const flow = defineFlow({
    kind: "loading",
    authentication: { requireUser: false, defaultUserId: "u1" },
    actions: {
      go: sequencer({
        name: "go",
        steps: [
          mark("first"),
          usesEarly,
          mark("between"),
          usesLate,
          router({ name: "pick", routes: { taken: mark("taken"), other: untaken }, select: () => "taken" }),
        ],
      }),
    },
  });

  it("eager ones (even in a branch not taken) when the action starts; a lazy single when its block dispatches", async () => {
    await withHost({ flows: [flow] }, async (host, stores) => {
      const getState = stores.resources.getState.bind(stores.resources);
      stores.resources.getState = (address, key) => {
        trace.push(`load ${key}`);
        return getState(address, key);
      };
      const { request } = await host.invoke("loading", "go", headerCaller(), {});
      expect((await settle(host, request.id)).record.status).toBe("completed");
      expect(trace).toEqual([
        "load early",
        "load branch",
        "run first",
        "run usesEarly",
        "run between",
        "load late",
        "run usesLate",
        "run taken",
      ]);
    });
  });
});
