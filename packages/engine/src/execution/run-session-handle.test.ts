import { type BlockContext, defineFlow, handler } from "@flowrt/core";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { settle, withHost } from "../testing/fixtures.js";

/** `ctx.session.setTitle` / `setMetadata`: the session's record from block code, under the rules of its writes. */

const asAda = { source: "test", principal: { userId: "ada" } };

let kept: BlockContext | undefined;
const refusals: string[] = [];
/** Resolved once `renameAfterAbort` waits for its abort. */
let waiting: () => void = () => {};

const rename = handler({
  name: "rename",
  inputSchema: z.object({
    title: z.string().nullable().optional(),
    metadata: z.record(z.string(), z.unknown()).optional(),
  }),
  execute: async (input, ctx) => {
    // One handle for the run: the session's state and its record.
    expect(ctx.session).toBe(ctx.session);
    await ctx.session.incState({ renames: 1 });
    if (input.title !== undefined) await ctx.session.setTitle(input.title);
    if (input.metadata !== undefined) await ctx.session.setMetadata(input.metadata as never);
    kept = ctx;
    return { renames: ctx.session.state.renames };
  },
});

/** Waits for its abort, then tries to rename its session. */
const renameAfterAbort = handler({
  name: "renameAfterAbort",
  execute: async (_input, ctx) => {
    const aborted = new Promise((resolve) => ctx.signal.addEventListener("abort", resolve, { once: true }));
    waiting();
    await aborted;
    try {
      await ctx.session.setTitle("too late");
    } catch (error) {
      refusals.push((error as { code: string }).code);
    }
    try {
      await ctx.session.setMetadata({ late: true });
    } catch (error) {
      refusals.push((error as { code: string }).code);
    }
    return {};
  },
});

const flow = defineFlow({
  kind: "renamer",
  session: { stateSchema: z.object({ renames: z.number().default(0) }) },
  actions: { rename, renameAfterAbort },
});

describe("ctx.session.setTitle and setMetadata", () => {
  it("set the title (null removes it) and merge metadata one level deep (null removes a key)", async () => {
    await withHost({ flows: [flow] }, async (host, stores) => {
      const session = await host.createSession("renamer", asAda, { title: "old", metadata: { a: 1, b: 2 } });
      const first = await host.invoke("renamer", "rename", asAda, {
        sessionId: session.id,
        input: { title: "new", metadata: { b: null, c: { d: 3 } } },
      });
      expect((await settle(host, first.request.id)).record).toMatchObject({
        status: "completed",
        output: { renames: 1 },
      });
      expect(await stores.sessions.get(session.id)).toMatchObject({
        title: "new",
        metadata: { a: 1, c: { d: 3 } },
      });
      const second = await host.invoke("renamer", "rename", asAda, {
        sessionId: session.id,
        input: { title: null },
      });
      await settle(host, second.request.id);
      const record = await stores.sessions.get(session.id);
      expect(record).not.toHaveProperty("title");
      expect(record?.metadata).toEqual({ a: 1, c: { d: 3 } });
    });
  });

  it("refuse what PATCH refuses (a title over 200 characters, metadata that is no JSON object), with nothing stored", async () => {
    await withHost({ flows: [flow] }, async (host, stores) => {
      const session = await host.createSession("renamer", asAda, { title: "kept" });
      for (const input of [{ title: "x".repeat(201) }, { metadata: { big: "y".repeat(20_000) } }]) {
        const { request } = await host.invoke("renamer", "rename", asAda, { sessionId: session.id, input });
        const { record } = await settle(host, request.id);
        expect(record.status).toBe("failed");
        expect(record.error?.code).toBe("invalid-request");
      }
      expect(await stores.sessions.get(session.id)).toMatchObject({ title: "kept", metadata: {} });
    });
  });

  it("are refused after the run was aborted (request-aborted) or has ended (request-finished)", async () => {
    await withHost({ flows: [flow] }, async (host, stores) => {
      const session = await host.createSession("renamer", asAda, { title: "kept" });
      refusals.length = 0;
      const started = new Promise<void>((resolve) => {
        waiting = resolve;
      });
      const { request } = await host.invoke("renamer", "renameAfterAbort", asAda, { sessionId: session.id });
      await started;
      await host.abortRequest(request.id, asAda);
      await settle(host, request.id);
      await host.requests.whenSettled(request.id);
      expect(refusals).toEqual(["request-aborted", "request-aborted"]);
      expect(await stores.sessions.get(session.id)).toMatchObject({ title: "kept", metadata: {} });

      kept = undefined;
      const done = await host.invoke("renamer", "rename", asAda, { sessionId: session.id, input: {} });
      await settle(host, done.request.id);
      await host.requests.whenSettled(done.request.id);
      await expect(kept!.session.setTitle("after the end")).rejects.toMatchObject({
        code: "request-finished",
      });
      await expect(kept!.session.setMetadata({ late: 1 })).rejects.toMatchObject({
        code: "request-finished",
      });
      expect(await stores.sessions.get(session.id)).toMatchObject({ title: "kept", metadata: {} });
    });
  });
});
