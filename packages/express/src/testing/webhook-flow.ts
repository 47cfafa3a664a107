import { createHmac, timingSafeEqual } from "node:crypto";
import { defineFlow, handler } from "@flowrt/core";
import type { WebhookProviderDefinition } from "@flowrt/engine";
import { z } from "zod";

export const WEBHOOK_SECRET = "test-secret";

export function sign(body: string | Buffer): string {
  return `sha256=${createHmac("sha256", WEBHOOK_SECRET).update(body).digest("hex")}`;
}

/** A provider whose signature covers the exact body bytes, compared in constant time. */
export const signedProvider: WebhookProviderDefinition = {
  verify(rawBody, headers) {
    const header = headers["x-signature"];
    if (typeof header !== "string") return false;
    const expected = Buffer.from(sign(Buffer.from(rawBody)));
    const given = Buffer.from(header);
    return given.length === expected.length && timingSafeEqual(given, expected);
  },
  eventType: (payload) => (payload as { type?: string }).type ?? null,
};

const record = handler({
  name: "recordDelivery",
  inputSchema: z.object({ type: z.string(), n: z.number() }),
  execute: async (input, ctx) => {
    await ctx.session.patchState({ last: input.n });
    return { seen: input.n };
  },
});

export const inbox = defineFlow({
  kind: "inbox",
  authentication: { requireUser: false, defaultUserId: "webhooks" },
  session: { stateSchema: z.object({ last: z.number().default(0) }) },
  webhooks: { signed: { on: { ping: { block: record } } } },
});
