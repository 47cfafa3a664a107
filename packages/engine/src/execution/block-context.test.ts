import { defineFlow, defineResourceCollection, handler } from "@flowrt/core";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { headerCaller, settle, withHost } from "../testing/fixtures.js";

const notes = defineResourceCollection({
  pattern: "notes/*",
  scope: "session",
  stateSchema: z.object({ title: z.string().default("") }),
});

/** Takes the context apart the way handlers written against it do, then uses every piece on its own. */
const destructure = handler({
  name: "destructure",
  execute: async (_input, ctx) => {
    const { emit, session, resources, signal, log, principal, sessionId, requestId, flowId, flowKind } = ctx;
    await emit({ type: "custom.seen", data: { sessionId } });
    await session.incState({ calls: 1 });
    await resources.notes.create("a", { title: "from a destructured handle" });
    log.info("destructured");
    return {
      own: Object.keys(ctx).sort(),
      spread: Object.keys({ ...ctx }).sort(),
      calls: session.state.calls,
      aborted: signal.aborted,
      sameEmit: ctx.emit === emit,
      ids: [principal.userId, requestId === ctx.requestId, flowId, flowKind],
    };
  },
});

const flow = defineFlow({
  kind: "ctxshape",
  authentication: { requireUser: false, defaultUserId: "u1" },
  session: { stateSchema: z.object({ calls: z.number().default(0) }) },
  resources: { notes },
  actions: { destructure: { block: destructure } },
});

describe("the block context", () => {
  it("works taken apart: emit, scope state, resources, signal and log keep their run; own members are the identifiers", async () => {
    await withHost({ flows: [flow] }, async (host, stores) => {
      const { request, session } = await host.invoke("ctxshape", "destructure", headerCaller(), {});
      const { record, events } = await settle(host, request.id);
      expect(record.status).toBe("completed");
      const identifiers = ["flowId", "flowKind", "idempotencyKey", "principal", "requestId", "sessionId"];
      expect(record.output).toEqual({
        own: identifiers,
        spread: identifiers,
        calls: 1,
        aborted: false,
        sameEmit: true,
        ids: ["u1", true, "ctxshape", "ctxshape"],
      });
      const custom = events.find((event) => event.type === "custom.seen");
      expect(custom?.data).toEqual({ sessionId: session.id });
      const address = { scope: "session" as const, scopeId: session.id, bucket: "shared" };
      expect((await stores.resources.getState(address, "notes/a"))?.state).toEqual({
        title: "from a destructured handle",
      });
    });
  });
});
