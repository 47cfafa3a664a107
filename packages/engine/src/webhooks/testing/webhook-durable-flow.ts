/** A flow for the webhook restart test: one durable binding, one plain one, same handler. */
import { defineFlow, handler } from "@flowrt/core";
import { z } from "zod";
import type { WebhookProviderDefinition } from "../../host-options.js";

const applyEntry = handler({
  name: "applyEntry",
  inputSchema: z.object({ entry: z.string() }),
  execute: async (input, ctx) => {
    await ctx.session.incState({ applied: 1 });
    return { entry: input.entry, applied: ctx.session.state.applied };
  },
});

export const ledger = defineFlow({
  kind: "ledger",
  authentication: { requireUser: false, defaultUserId: "ledger-bot" },
  session: { stateSchema: z.object({ applied: z.number().default(0) }) },
  webhooks: {
    stripe: {
      on: {
        "entry.durable": {
          block: applyEntry,
          input: (event) => ({ entry: (event.payload as { entry: string }).entry }),
          durable: true,
        },
        "entry.plain": {
          block: applyEntry,
          input: (event) => ({ entry: (event.payload as { entry: string }).entry }),
        },
      },
    },
  },
});

type Payload = { id?: string; type?: string };

export function ledgerProviders(
  verify: WebhookProviderDefinition["verify"],
): Record<string, WebhookProviderDefinition> {
  return {
    stripe: {
      verify,
      eventType: (payload) => (payload as Payload).type ?? null,
      deliveryId: (payload) => (payload as Payload).id,
    },
  };
}
