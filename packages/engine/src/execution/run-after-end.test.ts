import { type BlockContext, defineFlow, defineResourceCollection, handler } from "@flowrt/core";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { headerCaller, settle, withHost } from "../testing/fixtures.js";

/**
 * A context kept past the end of its run (a timer, an unawaited promise) can no longer write or emit: nothing of
 * a run follows its terminal event, whether it completed or failed.
 */

const notes = defineResourceCollection({
  pattern: "notes/*",
  scope: "session",
  stateSchema: z.object({ n: z.number().default(0) }),
});

/** The contexts of the runs that returned, kept (as a stray timer would keep one). */
const kept: BlockContext[] = [];

const leaky = handler({
  name: "leaky",
  inputSchema: z.object({ fail: z.boolean() }),
  execute: async (input, ctx) => {
    kept.push(ctx as BlockContext);
    if (input.fail) throw new Error("failed on purpose");
    return "done";
  },
});

const flow = defineFlow({
  kind: "leaky",
  authentication: { requireUser: false, defaultUserId: "u1" },
  session: { stateSchema: z.object({ n: z.number().default(0) }) },
  resources: { notes },
  actions: { leaky },
});

async function refusal(attempt: Promise<unknown>): Promise<string | undefined> {
  return attempt.then(
    () => undefined,
    (error: { code?: string }) => error.code,
  );
}

describe("a context kept past the end of its run", () => {
  it.each([
    ["completed", false],
    ["failed", true],
  ])(
    "cannot write or emit once the request has %s: refused, nothing stored, nothing appended",
    async (status, fail) => {
      await withHost({ flows: [flow] }, async (host) => {
        const { request, session } = await host.invoke("leaky", "leaky", headerCaller(), { input: { fail } });
        const { record, events } = await settle(host, request.id);
        expect(record.status).toBe(status);
        const ctx = kept.pop() as unknown as {
          emit(event: { type: string; data?: object }): Promise<void>;
          session: { patchState(patch: object): Promise<void> };
          resources: { notes: { create(key: string): Promise<unknown> } };
        };
        expect(await refusal(ctx.emit({ type: "late.event" }))).toBe("request-finished");
        expect(await refusal(ctx.session.patchState({ n: 99 }))).toBe("request-finished");
        expect(await refusal(ctx.resources.notes.create("late"))).toBe("request-finished");
        expect(await host.stores.requests.readEvents(request.id)).toEqual(events);
        expect(
          await host.stores.resources.count({ scope: "session", scopeId: session.id, bucket: "shared" }),
        ).toBe(0);
        expect(
          (await host.stores.scopeState.get({ scope: "session", scopeId: session.id, bucket: "shared" }))
            ?.value.n,
        ).not.toBe(99);
      });
    },
  );

  it("ctx.emit refuses an empty type, a type with a line break (which would forge stream fields), data that is not a JSON object, and data beside payload fields; nothing is appended. The payload's fields may stand beside the type", async () => {
    const cycle: Record<string, unknown> = {};
    cycle.self = cycle;
    const bad: Array<Record<string, unknown>> = [
      { type: "" },
      { type: undefined },
      { type: "x\nevent: request.completed" },
      { type: "x\rid: 500" },
      { type: "tab\there" },
      { type: "progress", data: "abc" },
      { type: "progress", data: [1, 2] },
      { type: "progress", data: 7 },
      { type: "progress", data: null },
      { type: "progress", data: { big: 10n } },
      { type: "progress", data: cycle },
      { type: "progress", data: new Map() },
      { type: "progress", data: { a: 1 }, pct: 2 },
      { type: "progress", big: 10n },
    ];
    const emitter = handler({
      name: "emitter",
      execute: async (_input, ctx) => {
        const emit = ctx.emit as (event: Record<string, unknown>) => Promise<void>;
        const codes = [];
        for (const event of bad) codes.push(await refusal(emit(event)));
        await ctx.emit({ type: "progress", data: { step: 1, at: new Date(0) as never } });
        // The payload's fields beside the type, as the stream's envelope shows them.
        await ctx.emit({ type: "progress", pct: 50 });
        return codes;
      },
    });
    const emitting = defineFlow({
      kind: "emitting",
      authentication: { requireUser: false, defaultUserId: "u1" },
      actions: { emitter },
    });
    await withHost({ flows: [emitting] }, async (host) => {
      const { request } = await host.invoke("emitting", "emitter", headerCaller(), { input: null });
      const { record, events } = await settle(host, request.id);
      expect(record.output).toEqual(bad.map(() => "invalid-request"));
      // Only the engine's own events and the one good emit: every refused one appended nothing.
      expect(events.filter((e) => !/^(request|block)\./.test(e.type))).toEqual([
        expect.objectContaining({ type: "progress", data: { step: 1, at: "1970-01-01T00:00:00.000Z" } }),
        expect.objectContaining({ type: "progress", data: { pct: 50 } }),
      ]);
    });
  });
});
