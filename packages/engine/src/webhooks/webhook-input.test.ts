import { defineFlow, handler, SHARED_BUCKET } from "@flowrt/core";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { settle } from "../testing/fixtures.js";
import { billing, stripeEvent, webhookProviders } from "./testing/webhook-flows.js";
import { alphaSignature, startWebhookHost, type WebhookTestHost } from "./testing/webhook-harness.js";

let t: WebhookTestHost | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

async function deliver(host: WebhookTestHost, body: string) {
  const response = await host.post("/billing/webhooks/stripe", body, {
    "stripe-signature": alphaSignature(body),
  });
  expect(response.status).toBe(202);
  const { requestId } = response.body as { requestId: string };
  return settle(host.host, requestId);
}

async function sessionState(host: WebhookTestHost, sessionId: string) {
  const stored = await host.host.stores.scopeState.get({
    scope: "session",
    scopeId: sessionId,
    bucket: SHARED_BUCKET,
  });
  return stored?.value;
}

describe("a binding's input: mapped (may be async), validated, failures land on the request", () => {
  it("an async input is validated by the binding's inputSchema, whose output the block receives", async () => {
    t = await startWebhookHost({ flows: [billing], webhookProviders: webhookProviders() });
    const { record } = await deliver(
      t,
      stripeEvent("invoice.paid", { id: "in_7", amount_paid: 990 }, "evt_7"),
    );
    // The binding's schema renamed `amount` to the block's `amountCents`.
    expect(record.input).toEqual({ invoiceId: "in_7", deliveryId: "evt_7", amountCents: 990 });
    expect(record).toMatchObject({ status: "completed", output: { invoiceId: "in_7", amountCents: 990 } });
    expect((await sessionState(t, record.sessionId))?.invoices).toEqual(["in_7"]);
  });

  it("an input failing the binding's inputSchema is a failed request (202, not a 500) whose block never ran", async () => {
    t = await startWebhookHost({ flows: [billing], webhookProviders: webhookProviders() });
    const { record, events } = await deliver(t, stripeEvent("invoice.paid", { id: "in_8" }));
    expect(record.status).toBe("failed");
    expect(record.error).toMatchObject({ code: "invalid-input" });
    expect(record.error?.message).toContain('"amount"');
    expect(record.metadata).toMatchObject({ origin: "webhook", webhook: { eventType: "invoice.paid" } });
    expect(events.map((e) => e.type)).toEqual(["request.failed"]);
    expect((await sessionState(t, record.sessionId))?.invoices ?? []).toEqual([]);
  });

  it("without a binding inputSchema the block's own schema decides, before anything runs", async () => {
    t = await startWebhookHost({ flows: [billing], webhookProviders: webhookProviders() });
    const ok = await deliver(t, stripeEvent("invoice.created", { id: "in_9", amount_due: 50 }));
    expect(ok.record).toMatchObject({ status: "completed", output: { invoiceId: "in_9", amountCents: 50 } });

    const bad = await deliver(t, stripeEvent("invoice.created", { id: "in_10", amount_due: -5 }));
    expect(bad.record.status).toBe("failed");
    expect(bad.record.error).toMatchObject({ code: "invalid-input" });
    expect(bad.record.error?.message).toContain("amountCents");
    expect(bad.events.map((e) => e.type)).toEqual(["request.failed"]);
  });

  it("an input function that throws is a failed request carrying internal-error and an errorId, not its message", async () => {
    const boom = handler({ name: "boom", execute: async () => "ran" });
    const flow = defineFlow({
      kind: "billing",
      authentication: { requireUser: false, defaultUserId: "billing-bot" },
      webhooks: {
        stripe: {
          on: {
            "invoice.paid": {
              block: boom,
              input: async () => {
                throw new Error("cannot map this invoice");
              },
            },
          },
        },
      },
    });
    t = await startWebhookHost({ flows: [flow], webhookProviders: webhookProviders() });
    const { record, events } = await deliver(t, stripeEvent("invoice.paid", { id: "in_11" }));
    expect(record).toMatchObject({
      status: "failed",
      // Issue 22: the message is the server's (it goes to the log under the errorId).
      error: {
        code: "internal-error",
        message: "An unexpected error occurred.",
        errorId: expect.any(String),
      },
    });
    expect(record.output).toBeUndefined();
    expect(events.map((e) => e.type)).toEqual(["request.failed"]);
  });

  it("without `input` the payload itself is the block's input, and a binding schema with async refinements works", async () => {
    const echo = handler({ name: "echo", execute: async (input) => input });
    const flow = defineFlow({
      kind: "billing",
      authentication: { requireUser: false, defaultUserId: "billing-bot" },
      webhooks: {
        stripe: {
          on: {
            "invoice.paid": {
              block: echo,
              inputSchema: z
                .object({ id: z.string(), type: z.string() })
                .refine(async (value) => value.id.startsWith("evt_"), { message: "not an event id" }),
            },
          },
        },
      },
    });
    t = await startWebhookHost({ flows: [flow], webhookProviders: webhookProviders() });
    const { record } = await deliver(t, stripeEvent("invoice.paid", { id: "in_12" }, "evt_12"));
    expect(record).toMatchObject({ status: "completed", output: { id: "evt_12", type: "invoice.paid" } });

    const refused = await deliver(t, stripeEvent("invoice.paid", { id: "in_13" }, "bad_13"));
    expect(refused.record).toMatchObject({ status: "failed", error: { code: "invalid-input" } });
    expect(refused.record.error?.message).toContain("not an event id");
  });

  it("without a binding inputSchema a transforming block schema runs once per delivery; the record keeps the payload", async () => {
    let transforms = 0;
    const tagged = handler({
      name: "tagged",
      inputSchema: z.object({ id: z.string() }).transform((value) => {
        transforms++;
        return { tag: `seen:${value.id}` };
      }),
      execute: async (input) => input,
    });
    const flow = defineFlow({
      kind: "billing",
      authentication: { requireUser: false, defaultUserId: "billing-bot" },
      webhooks: { stripe: { on: { "invoice.paid": { block: tagged } } } },
    });
    t = await startWebhookHost({ flows: [flow], webhookProviders: webhookProviders() });
    const { record } = await deliver(t, stripeEvent("invoice.paid", { id: "in_14" }, "evt_14"));
    expect(record).toMatchObject({ status: "completed", output: { tag: "seen:evt_14" } });
    expect(record.input).toMatchObject({ id: "evt_14", type: "invoice.paid" });
    expect(transforms).toBe(1);
  });
});
