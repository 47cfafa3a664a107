import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { settle } from "../testing/fixtures.js";
import { billing, stripeEvent, webhookProviders } from "./testing/webhook-flows.js";
import { alphaSignature, startWebhookHost, type WebhookTestHost } from "./testing/webhook-harness.js";

let t: WebhookTestHost;
beforeEach(async () => {
  t = await startWebhookHost({ flows: [billing], webhookProviders: webhookProviders() });
});
afterEach(() => t.close());

async function webhookRequest() {
  const body = stripeEvent("invoice.paid", { id: "in_1", amount_paid: 3 });
  const response = await t.post("/billing/webhooks/stripe", body, {
    "stripe-signature": alphaSignature(body),
  });
  return (await settle(t.host, (response.body as { requestId: string }).requestId)).record;
}

describe("webhook handlers are not actions", () => {
  it("the flow listing names them under webhooks, never under actions", async () => {
    const response = await t.get("/");
    expect(response.body).toEqual({
      flows: [
        {
          flowId: "billing",
          kind: "billing",
          actions: ["ping"],
          webhooks: ["stripe", "github", "slack", "broken"],
          requiresAuth: false,
        },
      ],
    });
  });

  it.each(["webhook:stripe:invoice.paid", "invoice.paid", "recordInvoice", "stripe"])(
    "no action route reaches a webhook handler (%s → 404, nothing dispatched)",
    async (name) => {
      const response = await t.post(
        `/billing/actions/${encodeURIComponent(name)}`,
        JSON.stringify({ input: { invoiceId: "in_x", amountCents: 1 } }),
        { "content-type": "application/json" },
      );
      expect(response.status).toBe(404);
      expect(response.body).toMatchObject({ code: "action-not-found" });
      expect(t.writes.sessions).toEqual([]);
      expect(t.writes.requests).toEqual([]);
      expect(t.writes.events).toEqual([]);
    },
  );

  it("the OpenAPI document describes the webhook route, and no action operation for a handler", async () => {
    const response = await t.get("/openapi.json");
    const text = JSON.stringify(response.body);
    // Documented per flow kind and provider (issue 23), as any other route that names a flow.
    expect(text).toContain("/billing/webhooks/stripe");
    expect(text).not.toContain("invoice.paid");
    expect(text).not.toContain("recordInvoice");
  });

  it("a webhook-originated request cannot be re-run through retry (409 not-retryable), and nothing new is recorded", async () => {
    const record = await webhookRequest();
    expect(record.status).toBe("completed");
    const before = { requests: t.writes.requests.length, events: t.writes.events.length };
    const response = await t.post(`/requests/${record.id}/retry`, "", {});
    expect(response.status).toBe(409);
    expect(response.body).toMatchObject({ code: "not-retryable" });
    expect({ requests: t.writes.requests.length, events: t.writes.events.length }).toEqual(before);
  });

  it("a webhook request whose input failed is not retryable either", async () => {
    const body = stripeEvent("invoice.paid", { id: "in_2" });
    const response = await t.post("/billing/webhooks/stripe", body, {
      "stripe-signature": alphaSignature(body),
    });
    const { requestId } = response.body as { requestId: string };
    expect((await settle(t.host, requestId)).record.status).toBe("failed");
    const before = t.writes.requests.length;
    const retry = await t.post(`/requests/${requestId}/retry`, "", {});
    expect(retry.status).toBe(409);
    expect(retry.body).toMatchObject({ code: "not-retryable" });
    expect(t.writes.requests.length).toBe(before);
  });

  it("an ordinary action of the same flow is still retryable (the refusal is about origin)", async () => {
    const invoked = await t.post("/billing/actions/ping", JSON.stringify({ input: null }), {});
    expect(invoked.status).toBe(202);
    const { requestId } = invoked.body as { requestId: string };
    await settle(t.host, requestId);
    const retry = await t.post(`/requests/${requestId}/retry`, "", {});
    expect(retry.status).toBe(202);
  });
});
