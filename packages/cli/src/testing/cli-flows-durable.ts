// A flows module for `flowrt serve` shutdown tests: a durable action that holds while FLOWRT_TEST_HOLD is set
// (the process that is stopped) and completes elsewhere (the process that recovers it).
import { defineFlow, handler } from "@flowrt/core";
import { z } from "zod";

const step = handler({
  name: "step",
  inputSchema: z.object({ label: z.string() }),
  execute: async (input, ctx) => {
    if (process.env.FLOWRT_TEST_HOLD) {
      process.stdout.write(`holding ${ctx.requestId}\n`);
      await new Promise((resolve) => ctx.signal.addEventListener("abort", resolve, { once: true }));
      throw new Error("stopped before the end");
    }
    return { label: input.label, pid: process.pid };
  },
});

export const jobs = defineFlow({
  kind: "jobs",
  authentication: { resolvePrincipal: (c) => ({ userId: String(c.request?.headers["x-user-id"] ?? "") }) },
  actions: { step: { block: step, durable: true } },
});
