/** Flows and host-side providers for the webhook transport tests, signed in the presets' formats. */
import { setTimeout as sleep } from "node:timers/promises";
import { defineFlow, handler, type WebhookInboundEvent } from "@flowrt/core";
import { alphaWebhookVerifier, betaWebhookVerifier, gammaWebhookVerifier } from "@flowrt/webhooks";
import { z } from "zod";
import type { WebhookProviderDefinition } from "../../host-options.js";
import { SECRET } from "./webhook-harness.js";

type Headers = Record<string, string | string[] | undefined>;

interface StripeLike {
  id?: string;
  type?: string;
  data?: { object?: Record<string, unknown> };
}
const objectOf = (event: WebhookInboundEvent) => (event.payload as StripeLike).data?.object ?? {};

const recordInvoice = handler({
  name: "recordInvoice",
  inputSchema: z.object({
    invoiceId: z.string(),
    amountCents: z.number().int().nonnegative(),
    deliveryId: z.string().optional(),
  }),
  execute: async (input, ctx) => {
    // A block defined apart from its flow sees untyped session state.
    const invoices = (ctx.session.state.invoices as string[] | undefined) ?? [];
    await ctx.session.patchState({ invoices: [...invoices, input.invoiceId] });
    return { ...input, sessionId: ctx.sessionId, userId: ctx.principal.userId };
  },
});

const recordPush = handler({
  name: "recordPush",
  inputSchema: z.object({ ref: z.string(), deliveryId: z.string().optional() }),
  execute: async (input) => input,
});

const runCommand = handler({
  name: "runCommand",
  inputSchema: z.object({ command: z.string(), text: z.string() }),
  execute: async (input) => ({ ran: `${input.command} ${input.text}` }),
});

const ping = handler({ name: "ping", execute: async () => "pong" });

/** `invoice.paid`'s binding maps `amount` to the block's `amountCents`: only its own schema accepts the mapped value. */
const paidInput = z
  .object({ invoiceId: z.string(), amount: z.number(), deliveryId: z.string().optional() })
  .transform(({ amount, ...rest }) => ({ ...rest, amountCents: amount }));

export const billing = defineFlow({
  kind: "billing",
  authentication: { requireUser: false, defaultUserId: "billing-bot" },
  session: { stateSchema: z.object({ invoices: z.array(z.string()).default([]) }) },
  actions: { ping: { block: ping } },
  webhooks: {
    stripe: {
      on: {
        "invoice.paid": {
          block: recordInvoice,
          input: async (event) => {
            await sleep(1);
            const invoice = objectOf(event);
            return { invoiceId: invoice.id, amount: invoice.amount_paid, deliveryId: event.deliveryId };
          },
          inputSchema: paidInput,
        },
        // No inputSchema: the mapped value is checked against recordInvoice's own schema.
        "invoice.created": {
          block: recordInvoice,
          input: (event) => ({ invoiceId: objectOf(event).id, amountCents: objectOf(event).amount_due }),
        },
        "invoice.finalized": {
          block: recordInvoice,
          input: (event) => ({ invoiceId: objectOf(event).id, amountCents: objectOf(event).amount_due }),
          when: (event) => (objectOf(event).amount_due as number) > 0,
        },
        "invoice.voided": {
          block: recordInvoice,
          when: () => {
            throw new Error("predicate bug");
          },
        },
        "customer.invoice": {
          block: recordInvoice,
          input: (event) => ({ invoiceId: objectOf(event).id, amountCents: 0 }),
          sessionId: async (event) => `customer-${objectOf(event).customer}`,
        },
      },
    },
    github: {
      on: {
        push: {
          block: recordPush,
          input: (event) => ({ ref: (event.payload as { ref: string }).ref, deliveryId: event.deliveryId }),
        },
      },
    },
    slack: {
      on: {
        "/deploy": {
          block: runCommand,
          input: (event) => {
            const form = event.payload as Record<string, string>;
            return { command: form.command, text: form.text };
          },
        },
      },
    },
    broken: { on: {} },
  },
});

/** Principals come from the verified body (`account`), as a real resolver would read a provider's account id. */
export const crm = defineFlow({
  kind: "crm",
  authentication: {
    resolvePrincipal: (context) => {
      if (context.source !== "webhook" || !context.rawBody) return null;
      const account = (JSON.parse(Buffer.from(context.rawBody).toString("utf8")) as { account?: unknown })
        .account;
      return typeof account === "string" ? { userId: account } : null;
    },
  },
  webhooks: {
    stripe: {
      on: {
        "customer.invoice": {
          block: recordInvoice,
          input: (event) => ({ invoiceId: objectOf(event).id, amountCents: 0 }),
          sessionId: (event) => `customer-${objectOf(event).customer}`,
        },
      },
    },
  },
});

/** Reports that it started, then takes 5 s unless aborted. */
export const slowStarted: { requestIds: string[] } = { requestIds: [] };
const slowJob = handler({
  name: "slowJob",
  execute: async (_input, ctx) => {
    slowStarted.requestIds.push(ctx.requestId);
    await sleep(5_000, undefined, { signal: ctx.signal });
    return "finished";
  },
});

export const jobs = defineFlow({
  kind: "jobs",
  authentication: { requireUser: false, defaultUserId: "jobs-bot" },
  webhooks: { stripe: { on: { "job.started": { block: slowJob } } } },
});

function header(headers: Headers, name: string): string | undefined {
  const value = headers[name];
  return typeof value === "string" ? value : undefined;
}

/** Form-encoded bodies (Slack commands) become an object; anything else is JSON. */
function parseSlack(rawBody: Uint8Array, headers: Headers): unknown {
  const text = new TextDecoder("utf-8", { fatal: true }).decode(rawBody);
  if ((header(headers, "content-type") ?? "").startsWith("application/x-www-form-urlencoded")) {
    return Object.fromEntries(new URLSearchParams(text));
  }
  return JSON.parse(text);
}

/** The host-side providers, each with the preset verifier of its format. */
export function webhookProviders(
  seen: { verified: Uint8Array[] } = { verified: [] },
): Record<string, WebhookProviderDefinition> {
  const spy =
    (verify: WebhookProviderDefinition["verify"]): WebhookProviderDefinition["verify"] =>
    (rawBody, headers) => {
      seen.verified.push(Uint8Array.from(rawBody));
      return verify(rawBody, headers);
    };
  return {
    stripe: {
      verify: spy(alphaWebhookVerifier(SECRET)),
      eventType: (payload) => (payload as StripeLike).type ?? null,
      deliveryId: (payload) => (payload as StripeLike).id,
    },
    github: {
      verify: spy(betaWebhookVerifier(SECRET)),
      eventType: (_payload, headers) => header(headers, "x-github-event") ?? null,
      deliveryId: (_payload, headers) => header(headers, "x-github-delivery"),
    },
    slack: {
      verify: spy(gammaWebhookVerifier(SECRET)),
      parse: parseSlack,
      eventType: (payload) => {
        const p = payload as { command?: string; type?: string };
        return p.command ?? p.type ?? null;
      },
      // Slack's URL verification handshake: answer the challenge, dispatch nothing.
      acknowledge: (event) => {
        const p = event.payload as { type?: string; challenge?: string };
        return p.type === "url_verification" ? { challenge: p.challenge } : null;
      },
    },
    broken: {
      verify: () => {
        throw new Error("verifier bug");
      },
    },
  };
}

/** A Stripe-shaped event body. */
export function stripeEvent(type: string, object: Record<string, unknown>, id = `evt_${type}`): string {
  return JSON.stringify({ id, object: "event", type, data: { object } });
}
