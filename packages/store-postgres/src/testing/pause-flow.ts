import { defineFlow, handler } from "@flowrt/core";
import { z } from "zod";

/**
 * The flow of the SIGSTOP test (`paused-host.test.ts`): a durable action that says on stdout that it started
 * (`pausing <requestId>`), sleeps, then counts itself done in session state; its completion hook counts
 * completions. A host frozen in the sleep and resumed after another host completed the request must add to
 * neither count.
 */
const pause = handler({
  name: "pause",
  inputSchema: z.object({ ms: z.number().int().min(0).max(60_000) }),
  execute: async (input, ctx) => {
    process.stdout.write(`pausing ${ctx.requestId}\n`);
    await new Promise((resolve) => setTimeout(resolve, input.ms));
    await ctx.session.incState({ done: 1 });
    return { host: process.env.FLOWRT_TEST_HOST ?? "unnamed" };
  },
});

export const pauser = defineFlow({
  kind: "pauser",
  session: { stateSchema: z.object({ done: z.number().default(0), completions: z.number().default(0) }) },
  actions: {
    pause: {
      block: pause,
      durable: true,
      // The run's side effect after its block: once per request, whichever host completes it.
      onCompleted: async (_output, ctx) => {
        await ctx.session.incState({ completions: 1 });
      },
    },
  },
});
