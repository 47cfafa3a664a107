import { defineFlow, handler, hasErrorCode } from "@flowrt/core";
import { createMemoryStores } from "@flowrt/store-memory";
import { describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { createFlowHost } from "../host.js";
import { type HostLogger, silentLogger } from "../logger.js";

/** Blocks the event loop, as a long GC pause or a frozen VM does: no timer (no renewal) runs meanwhile. */
function freeze(ms: number): void {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    // busy
  }
}

function recordingLogger() {
  const warnings: Array<{ message: string; data: Record<string, unknown> | undefined }> = [];
  const logger: HostLogger = {
    ...silentLogger,
    warn: (data: object | string, message?: string) =>
      void (typeof data === "string"
        ? warnings.push({ message: data, data: undefined })
        : warnings.push({ message: message!, data: data as Record<string, unknown> })),
  };
  return { logger, warnings };
}

describe("a durable run whose claim lapsed stops before it writes", () => {
  it("refuses the write (request-aborted, nothing stored, lease-lost in the log); recovery then completes it once", async () => {
    const seen: Array<{ attempt: number; key: string; refusal?: string }> = [];
    let attempts = 0;
    const flow = defineFlow({
      kind: "fenced",
      session: { stateSchema: z.object({ done: z.number().default(0) }) },
      actions: {
        work: {
          durable: true,
          block: handler({
            name: "work",
            execute: async (_input, ctx) => {
              const attempt = ++attempts;
              seen.push({ attempt, key: ctx.idempotencyKey });
              // The first run is frozen past its lease: its claim is not renewed meanwhile.
              if (attempt === 1) freeze(700);
              try {
                await ctx.session.incState({ done: 1 });
              } catch (error) {
                seen[seen.length - 1]!.refusal = hasErrorCode(error, "request-aborted")
                  ? "request-aborted"
                  : String(error);
                throw error;
              }
              return { attempt };
            },
          }),
        },
      },
    });
    const stores = createMemoryStores({ retention: false });
    const { logger, warnings } = recordingLogger();
    const host = createFlowHost({ flows: [flow], stores, logger, leaseMs: 300, recoveryIntervalMs: 100 });
    await host.start();
    const { request, session } = await host.invoke(
      "fenced",
      "work",
      { source: "test", principal: { userId: "ada" } },
      {
        input: null,
      },
    );

    await vi.waitFor(async () => expect((await stores.requests.get(request.id))?.status).toBe("completed"), {
      timeout: 5_000,
    });
    const state = await stores.scopeState.get({ scope: "session", scopeId: session.id, bucket: "shared" });
    expect(state?.value).toEqual({ done: 1 });
    // The first run's write was refused and stopped it; the second (recovery's, a new claim) wrote once.
    expect(seen.map((s) => s.refusal)).toEqual(["request-aborted", undefined]);
    // The idempotency key is the request's, the same in both runs.
    expect(new Set(seen.map((s) => s.key))).toEqual(new Set([`flowrt:${request.id}`]));
    const record = await stores.requests.get(request.id);
    expect(record?.output).toEqual({ attempt: 2 });
    expect(record?.epoch).toBe(2);
    const events = (await stores.requests.readEvents(request.id)).map((e) => e.type);
    expect(events.filter((type) => type.startsWith("request.") && type !== "request.started")).toEqual([
      "request.completed",
    ]);
    const lost = warnings.filter((w) => w.message.startsWith("lease-lost"));
    expect(lost).toHaveLength(1);
    expect(lost[0]!.data).toMatchObject({ requestId: request.id, epoch: 1 });
    expect(String(lost[0]!.data?.reason)).toMatch(/last renewed \d+ ms ago, past the 300 ms lease/);
    await host.close();
  });

  it("does not fence a non-durable run: a pause past the lease does not stop it", async () => {
    const flow = defineFlow({
      kind: "plain",
      session: { stateSchema: z.object({ done: z.number().default(0) }) },
      actions: {
        work: {
          block: handler({
            name: "work",
            execute: async (_input, ctx) => {
              freeze(500);
              await ctx.session.incState({ done: 1 });
              return { ok: true };
            },
          }),
        },
      },
    });
    const stores = createMemoryStores({ retention: false });
    const { logger, warnings } = recordingLogger();
    const host = createFlowHost({ flows: [flow], stores, logger, leaseMs: 300, recoveryIntervalMs: 0 });
    await host.start();
    const { request } = await host.invoke(
      "plain",
      "work",
      { source: "test", principal: { userId: "ada" } },
      {},
    );
    await vi.waitFor(async () => expect((await stores.requests.get(request.id))?.status).toBe("completed"), {
      timeout: 5_000,
    });
    expect(warnings.filter((w) => w.message.startsWith("lease-lost"))).toEqual([]);
    await host.close();
  });

  it("a take-over fences the stale run: its write is refused by the store, nothing stored, lease-lost in its log", async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    let attempts = 0;
    const refusals: string[] = [];
    const flow = defineFlow({
      kind: "takeover",
      session: { stateSchema: z.object({ done: z.number().default(0) }) },
      actions: {
        work: {
          durable: true,
          block: handler({
            name: "work",
            execute: async (_input, ctx) => {
              if (++attempts === 1) await gate; // host A's run waits here while B takes the request over
              try {
                await ctx.session.incState({ done: 1 });
              } catch (error) {
                refusals.push(hasErrorCode(error, "request-aborted") ? "request-aborted" : String(error));
                throw error;
              }
              return { by: attempts };
            },
          }),
        },
      },
    });
    const stores = createMemoryStores({ retention: false });
    const a = recordingLogger();
    // A renews rarely (its lease is long): only the take-over stops it.
    const hostA = createFlowHost({
      flows: [flow],
      stores,
      logger: a.logger,
      leaseMs: 60_000,
      recoveryIntervalMs: 0,
    });
    const hostB = createFlowHost({
      flows: [flow],
      stores,
      logger: silentLogger,
      leaseMs: 60_000,
      recoveryIntervalMs: 0,
    });
    await hostA.start();
    await hostB.start();
    const { request, session } = await hostA.invoke(
      "takeover",
      "work",
      { source: "test", principal: { userId: "ada" } },
      {},
    );
    await vi.waitFor(() => expect(attempts).toBe(1));
    // A's claim lapses (as if A were paused past its lease), and B's recovery claims the request: epoch 2.
    const running = (await stores.requests.get(request.id))!;
    await stores.requests.update(request.id, running.version, {
      claim: { hostId: running.claim!.hostId, until: 1 },
    });
    expect(await hostB.requests.recover()).toBe(1);
    await vi.waitFor(async () => expect((await stores.requests.get(request.id))?.status).toBe("completed"));
    release();
    await vi.waitFor(() => expect(refusals).toEqual(["request-aborted"]));
    await hostA.close();
    await hostB.close();
    const record = (await stores.requests.get(request.id))!;
    expect(record).toMatchObject({ status: "completed", output: { by: 2 }, epoch: 2 });
    const state = await stores.scopeState.get({ scope: "session", scopeId: session.id, bucket: "shared" });
    expect(state?.value).toEqual({ done: 1 });
    const terminal = (await stores.requests.readEvents(request.id)).filter((e) =>
      ["request.completed", "request.failed", "request.aborted"].includes(e.type),
    );
    expect(terminal.map((e) => e.type)).toEqual(["request.completed"]);
    const lost = a.warnings.filter((w) => w.message.startsWith("lease-lost"));
    expect(lost).toHaveLength(1);
    expect(lost[0]!.data).toMatchObject({ requestId: request.id, epoch: 1 });
  });
});
