import { defineFlow, handler } from "@flowrt/core";
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
