import { defineFlow, handler, type RequestRecord, type SessionRecord } from "@flowrt/core";
import { z } from "zod";

/**
 * A durable flow for crash tests. `slowStep` counts its attempts in session state and then, while
 * `FLOWRT_TEST_HANG` is set (the process that is killed), waits forever; elsewhere it completes.
 */
const slowStep = handler({
  name: "slowStep",
  inputSchema: z.object({ label: z.string() }),
  execute: async (input, ctx) => {
    await ctx.session.incState({ attempts: 1 });
    if (process.env.FLOWRT_TEST_HANG) {
      process.stdout.write(`running ${ctx.requestId}\n`);
      await new Promise(() => {});
    }
    return { label: input.label, attempts: ctx.session.state.attempts };
  },
});

export const durableFlow = defineFlow({
  kind: "durable",
  authentication: { requireUser: false, defaultUserId: "worker" },
  session: { stateSchema: z.object({ attempts: z.number().default(0) }) },
  actions: { slow: { block: slowStep, durable: true } },
});

/** The session `s1` of `durableFlow`'s default user, as a host would have stored it. */
export function durableSession(now = new Date().toISOString()): SessionRecord {
  return {
    id: "s1",
    flowId: "durable",
    flowKind: "durable",
    userId: "worker",
    rootSessionId: "s1",
    metadata: {},
    createdAt: now,
  };
}

/** A `slow` request of `durableFlow` in session `s1`, queued unless `overrides` say otherwise. */
export function durableRequest(
  overrides: Partial<RequestRecord> & { id: string },
  now = new Date().toISOString(),
): RequestRecord {
  return {
    sessionId: "s1",
    flowId: "durable",
    flowKind: "durable",
    action: "slow",
    userId: "worker",
    status: "queued",
    input: { label: overrides.id },
    metadata: { origin: "action" },
    durable: false,
    version: 1,
    createdAt: now,
    ...overrides,
  };
}
