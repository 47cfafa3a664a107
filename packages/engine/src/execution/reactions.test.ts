import {
  type DefinitionError,
  defineFlow,
  defineResourceCollection,
  handler,
  isFlowError,
  parallel,
  sequencer,
} from "@flowrt/core";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { settle, storeFactories, useHost } from "../testing/fixtures.js";

const notes = defineResourceCollection({
  pattern: "notes/*",
  scope: "session",
  stateSchema: z.object({ title: z.string().default(""), touched: z.number().default(0) }),
});

const write = handler({
  name: "write",
  execute: async (_input, ctx) => {
    const note = await ctx.resources.notes.create("a", { title: "A" });
    await note.writeContent("hello");
    return ctx.session.state;
  },
});

const notice = z.looseObject({ ref: z.string(), change: z.string(), path: z.string() });

const countCreates = handler({
  name: "countCreates",
  inputSchema: notice,
  execute: async (notice, ctx) => {
    await ctx.session.incState({ creates: 1 });
    return notice.path;
  },
});

const countContent = handler({
  name: "countContent",
  execute: async (_notice, ctx) => {
    await ctx.session.incState({ contentUpdates: 1 });
  },
});

// Writes the resource it reacts to: must not re-trigger itself.
const touch = handler({
  name: "touch",
  inputSchema: notice,
  execute: async (notice, ctx) => {
    const key = notice.path.slice("notes/".length);
    const note = await ctx.resources.notes.get(key);
    await note.incState({ touched: 1 });
  },
});

const flow = defineFlow({
  kind: "reactive",
  authentication: { requireUser: false, defaultUserId: "dev" },
  session: {
    stateSchema: z.object({ creates: z.number().default(0), contentUpdates: z.number().default(0) }),
  },
  resources: { notes },
  actions: { write },
  reactions: [
    { reactTo: { resource: "notes", changes: ["created"] }, block: countCreates },
    { reactTo: { contentUpdated: "notes" }, block: countContent },
    { reactTo: { resource: "notes", changes: ["created", "updated"] }, block: touch },
  ],
});

describe.each(storeFactories)("reactTo on the $name store", (factory) => {
  const env = useHost(factory, () => ({ flows: [flow] }));

  it("reactions (including reactTo.contentUpdated) run inside the originating turn", async () => {
    const { request } = await env.host.invoke("reactive", "write", { source: "test" }, {});
    const { record, events } = await settle(env.host, request.id);
    expect(record.status).toBe("completed");
    // The action's own output already sees what the reactions wrote: they ran before it returned.
    expect(record.output).toEqual({ creates: 1, contentUpdates: 1 });
    const started = events.filter((e) => e.type === "block.started").map((e) => e.data.block);
    expect(started).toEqual(["write", "countCreates", "touch", "countContent"]);
    const completedAt = events.findIndex((e) => e.type === "request.completed");
    expect(events.findIndex((e) => e.data.block === "countContent")).toBeLessThan(completedAt);
  });

  it("a reaction that writes the resource it reacts to does not trigger itself again", async () => {
    const { request, session } = await env.host.invoke("reactive", "write", { source: "test" }, {});
    await settle(env.host, request.id);
    const item = await env.host.stores.resources.getState(
      { scope: "session", scopeId: session.id, bucket: "shared" },
      "notes/a",
    );
    expect(item?.state.touched).toBe(1);
  });
});

describe("reactions and parallel branches", () => {
  const seen: string[] = [];
  const slowReaction = handler({
    name: "slowReaction",
    inputSchema: notice,
    execute: async (notice) => {
      seen.push(notice.path);
      await new Promise((resolve) => setTimeout(resolve, 30));
    },
  });
  const createOne = (key: string, waitMs: number) =>
    handler({
      name: `create-${key}`,
      execute: async (_input, ctx) => {
        await new Promise((resolve) => setTimeout(resolve, waitMs));
        await ctx.resources.notes.create(key, { title: key });
      },
    });
  const both = sequencer({ name: "both", steps: [parallel([createOne("p1", 0), createOne("p2", 5)])] });
  const branching = defineFlow({
    kind: "branching",
    authentication: { requireUser: false, defaultUserId: "dev" },
    resources: { notes },
    actions: { both: { block: both } },
    reactions: [{ reactTo: { resource: "notes", changes: ["created"] }, block: slowReaction }],
  });
  const env = useHost(storeFactories[0]!, () => ({ flows: [branching] }));

  it("a change from another branch runs a reaction that is still running for the first", async () => {
    seen.length = 0;
    const { request } = await env.host.invoke("branching", "both", { source: "test" }, {});
    const { record } = await settle(env.host, request.id);
    expect(record.status).toBe("completed");
    expect(seen.sort()).toEqual(["notes/p1", "notes/p2"]);
  });
});

describe("reactTo definitions", () => {
  it("a reaction to an undeclared accessor is a definition error naming it", () => {
    let error: unknown;
    try {
      defineFlow({
        kind: "broken",
        actions: { write },
        resources: { notes },
        reactions: [{ reactTo: { contentUpdated: "nope" }, block: countContent }],
      });
    } catch (e) {
      error = e;
    }
    expect(isFlowError(error) && (error as DefinitionError).code).toBe("definition-error");
    expect((error as Error).message).toContain('"nope"');
  });
});
