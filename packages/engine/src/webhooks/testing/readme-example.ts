// The example of src/webhooks/README.md, kept runnable by ../readme-example.test.ts.
import { createHmac } from "node:crypto";
import { defineFlow, defineResourceCollection, handler, hasErrorCode } from "@flowrt/core";
import { createFlowHost, createHttpHandler } from "@flowrt/engine";
import { createMemoryStores } from "@flowrt/store-memory";
import { alphaWebhookVerifier } from "@flowrt/webhooks";
import { z } from "zod";

const secret = "whsec_example";

// One item per delivery id: `create` refuses a key that exists, so a redelivery stops there.
const deliveries = defineResourceCollection({
  pattern: "deliveries/*",
  scope: "session",
  stateSchema: z.object({ invoiceId: z.string() }),
});

const recordPayment = handler({
  name: "recordPayment",
  inputSchema: z.object({ deliveryId: z.string(), invoiceId: z.string(), amount: z.number() }),
  resources: { deliveries },
  execute: async (input, ctx) => {
    try {
      await ctx.resources.deliveries.create(input.deliveryId, { invoiceId: input.invoiceId });
    } catch (error) {
      if (hasErrorCode(error, "topic-exists")) return { duplicate: true };
      throw error;
    }
    await ctx.session.incState({ paidCents: input.amount });
    return { recorded: input.invoiceId };
  },
});

const payments = defineFlow({
  kind: "payments",
  authentication: { requireUser: false, defaultUserId: "stripe" },
  session: { stateSchema: z.object({ paidCents: z.number().default(0) }) },
  webhooks: {
    stripe: {
      on: {
        "invoice.paid": {
          block: recordPayment,
          input: (event) => {
            const invoice = (event.payload as { data: { object: { id: string; amount_paid: number } } }).data
              .object;
            return { deliveryId: event.deliveryId, invoiceId: invoice.id, amount: invoice.amount_paid };
          },
          // Every delivery lands in one long-lived session, so the deliveries collection spans them all.
          sessionId: () => "stripe-ledger",
        },
      },
    },
  },
});

export async function main() {
  const host = createFlowHost({
    flows: [payments],
    stores: createMemoryStores(),
    webhookProviders: {
      stripe: {
        verify: alphaWebhookVerifier(secret),
        eventType: (payload) => (payload as { type: string }).type,
        deliveryId: (payload) => (payload as { id: string }).id,
      },
    },
  });
  await host.start();
  const http = createHttpHandler(host);

  // What Stripe sends: the raw body, signed as `t=<ts>,v1=<hmac of "<ts>.<body>">`.
  const body = JSON.stringify({
    id: "evt_1",
    type: "invoice.paid",
    data: { object: { id: "in_1", amount_paid: 1200 } },
  });
  const t = Math.floor(Date.now() / 1000);
  const signature = `t=${t},v1=${createHmac("sha256", secret).update(`${t}.${body}`).digest("hex")}`;
  const deliver = () =>
    http({
      method: "POST",
      path: "/payments/webhooks/stripe",
      url: "/api/flows/payments/webhooks/stripe",
      query: {},
      headers: { "content-type": "application/json", "stripe-signature": signature },
      rawBody: new TextEncoder().encode(body),
    });

  // The provider retries: the same delivery arrives twice. Both are answered 202 and both run.
  const outputs: unknown[] = [];
  for (const response of [await deliver(), await deliver()]) {
    const { requestId } = response.body as { requestId: string };
    for await (const _event of host.events(requestId)); // wait for the run to end
    outputs.push((await host.stores.requests.get(requestId))?.output);
  }
  const tampered = await http({
    method: "POST",
    path: "/payments/webhooks/stripe",
    url: "/api/flows/payments/webhooks/stripe",
    query: {},
    headers: { "stripe-signature": signature },
    rawBody: new TextEncoder().encode(body.replace("1200", "9")),
  });
  await host.close();
  return { outputs, tamperedStatus: tampered.status }; // [{ recorded: "in_1" }, { duplicate: true }], 401
}
