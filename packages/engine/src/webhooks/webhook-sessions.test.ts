import { defineFlow, handler, type PrincipalResolutionContext, SHARED_BUCKET } from "@flowrt/core";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { settle } from "../testing/fixtures.js";
import { billing, crm, stripeEvent, webhookProviders } from "./testing/webhook-flows.js";
import { alphaSignature, startWebhookHost, type WebhookTestHost } from "./testing/webhook-harness.js";

const echo = handler({ name: "echo", execute: async (input: unknown) => input });

let t: WebhookTestHost;
beforeEach(async () => {
  t = await startWebhookHost({ flows: [billing, crm], webhookProviders: webhookProviders() });
});
afterEach(() => t.close());

/** A signed Stripe-shaped delivery; `account` is what the crm flow's resolver reads from the body. */
function customerInvoice(invoiceId: string, customer: string, account?: string): string {
  const body = JSON.parse(stripeEvent("customer.invoice", { id: invoiceId, customer }, `evt_${invoiceId}`));
  return JSON.stringify(account === undefined ? body : { ...body, account });
}

async function post(flow: string, body: string) {
  return t.post(`/${flow}/webhooks/stripe`, body, { "stripe-signature": alphaSignature(body) });
}

async function run(flow: string, body: string) {
  const response = await post(flow, body);
  expect(response.status).toBe(202);
  return (await settle(t.host, (response.body as { requestId: string }).requestId)).record;
}

/** How many writes a refusal must leave unchanged. */
const counts = () => ({
  sessions: t.writes.sessions.length,
  requests: t.writes.requests.length,
  events: t.writes.events.length,
});

describe("sessions of webhook runs", () => {
  it("without `sessionId` every delivery runs in a fresh ephemeral session of the flow's default user", async () => {
    const body = stripeEvent("invoice.paid", { id: "in_1", amount_paid: 1 });
    const first = await run("billing", body);
    const second = await run("billing", body);
    expect(first.sessionId).not.toBe(second.sessionId);
    expect(t.writes.sessions.map((s) => s.id)).toEqual([first.sessionId, second.sessionId]);
    for (const session of t.writes.sessions) {
      expect(session).toMatchObject({
        flowId: "billing",
        userId: "billing-bot",
        metadata: { ephemeral: true },
      });
    }
  });

  it("with `sessionId` the session is created on the first delivery and found on the next", async () => {
    const first = await run("billing", customerInvoice("in_1", "cus_1"));
    const second = await run("billing", customerInvoice("in_2", "cus_1"));
    const other = await run("billing", customerInvoice("in_3", "cus_2"));
    expect(first.sessionId).toBe("customer-cus_1");
    expect(second.sessionId).toBe("customer-cus_1");
    expect(other.sessionId).toBe("customer-cus_2");
    expect(t.writes.sessions.map((s) => s.id)).toEqual(["customer-cus_1", "customer-cus_2"]);
    const state = await t.host.stores.scopeState.get({
      scope: "session",
      scopeId: "customer-cus_1",
      bucket: SHARED_BUCKET,
    });
    expect(state?.value.invoices).toEqual(["in_1", "in_2"]);
  });

  it("a named session is bound to the principal resolved at its creation", async () => {
    const record = await run("crm", customerInvoice("in_1", "cus_9", "acct_a"));
    expect(record).toMatchObject({ sessionId: "customer-cus_9", userId: "acct_a", status: "completed" });
    expect(await t.host.stores.sessions.get("customer-cus_9")).toMatchObject({
      userId: "acct_a",
      flowId: "crm",
    });
    // The same principal later: found, not re-created.
    const again = await run("crm", customerInvoice("in_2", "cus_9", "acct_a"));
    expect(again).toMatchObject({ sessionId: "customer-cus_9", userId: "acct_a", status: "completed" });
  });

  it("a later delivery resolving to another principal is a failed request (202) in a session of its own; nothing runs", async () => {
    await run("crm", customerInvoice("in_1", "cus_9", "acct_a"));
    const before = counts();
    const response = await post("crm", customerInvoice("in_2", "cus_9", "acct_b"));
    expect(response.status).toBe(202);
    const { record, events } = await settle(t.host, (response.body as { requestId: string }).requestId);
    expect(record).toMatchObject({
      status: "failed",
      userId: "acct_b",
      error: { code: "user-binding-mismatch" },
    });
    expect(record.metadata).toMatchObject({ origin: "webhook", webhook: { provider: "stripe" } });
    expect(events.map((e) => e.type)).toEqual(["request.failed"]);
    // The named session is untouched; the failure has an ephemeral session of the delivery's principal.
    expect(await t.host.stores.sessions.get("customer-cus_9")).toMatchObject({ userId: "acct_a" });
    expect(record.sessionId).not.toBe("customer-cus_9");
    expect(await t.host.stores.sessions.get(record.sessionId)).toMatchObject({
      userId: "acct_b",
      metadata: { ephemeral: true },
    });
    expect(counts()).toEqual({
      sessions: before.sessions + 1,
      requests: before.requests + 1,
      events: before.events + 1,
    });
    expect(await t.allRequests()).toHaveLength(2);
  });

  it("a delivery the flow's resolver cannot attribute is 401 and writes nothing", async () => {
    const response = await post("crm", customerInvoice("in_1", "cus_9"));
    expect(response.status).toBe(401);
    expect(counts()).toEqual({ sessions: 0, requests: 0, events: 0 });
  });

  it("without a resolver, a delivery runs as `anonymous` on a flow that requires no user and has no default one", async () => {
    const anonymousFlow = defineFlow({
      kind: "anon",
      authentication: { requireUser: false },
      webhooks: { stripe: { on: { "invoice.paid": { block: echo } } } },
    });
    const strictFlow = defineFlow({
      kind: "strict",
      webhooks: { stripe: { on: { "invoice.paid": { block: echo } } } },
    });
    const own = await startWebhookHost({
      flows: [anonymousFlow, strictFlow],
      webhookProviders: webhookProviders(),
    });
    try {
      const body = stripeEvent("invoice.paid", { id: "in_1", amount: 5 }, "evt_anon");
      const headers = { "stripe-signature": alphaSignature(body) };
      const accepted = await own.post("/anon/webhooks/stripe", body, headers);
      expect(accepted.status).toBe(202);
      const { record } = await settle(own.host, (accepted.body as { requestId: string }).requestId);
      expect(record).toMatchObject({ status: "completed", userId: "anonymous" });
      // A flow that requires a user, with neither a resolver nor a default user, refuses (401) and writes nothing.
      const before = structuredClone(own.writes);
      const refused = await own.post("/strict/webhooks/stripe", body, headers);
      expect(refused.status).toBe(401);
      expect(await own.allRequests()).toHaveLength(1);
      expect(own.writes).toEqual(before);
    } finally {
      await own.close();
    }
  });

  it("a resolver sees the delivery as a webhook: source, the binding's action label and the exact bytes", async () => {
    const seen: PrincipalResolutionContext[] = [];
    const resolved = defineFlow({
      kind: "resolved",
      authentication: {
        resolvePrincipal: (context) => {
          seen.push(context);
          return { userId: "acct_r" };
        },
      },
      webhooks: { stripe: { on: { "invoice.paid": { block: echo } } } },
    });
    const own = await startWebhookHost({ flows: [resolved], webhookProviders: webhookProviders() });
    try {
      const body = stripeEvent("invoice.paid", { id: "in_1", amount: 5 }, "evt_r");
      const accepted = await own.post("/resolved/webhooks/stripe", body, {
        "stripe-signature": alphaSignature(body),
      });
      expect(accepted.status).toBe(202);
      const { record } = await settle(own.host, (accepted.body as { requestId: string }).requestId);
      expect(record).toMatchObject({ status: "completed", userId: "acct_r" });
      expect(seen).toHaveLength(1);
      expect(seen[0]).toMatchObject({
        source: "webhook",
        envelope: {
          action: "webhook:stripe:invoice.paid",
          // The delivery as its request records it.
          metadata: { webhook: { provider: "stripe", eventType: "invoice.paid", deliveryId: "evt_r" } },
        },
      });
      expect(Buffer.from(seen[0]!.rawBody!).toString("utf8")).toBe(body);
    } finally {
      await own.close();
    }
  });

  it("a named session owned by another flow makes a failed request (wrong-instance-session, 202); nothing runs there", async () => {
    await run("crm", customerInvoice("in_1", "cus_9", "acct_a"));
    const before = counts();
    const response = await post("billing", customerInvoice("in_2", "cus_9"));
    expect(response.status).toBe(202);
    const { record } = await settle(t.host, (response.body as { requestId: string }).requestId);
    expect(record).toMatchObject({
      status: "failed",
      flowId: "billing",
      error: { code: "wrong-instance-session" },
    });
    expect(counts()).toEqual({
      sessions: before.sessions + 1,
      requests: before.requests + 1,
      events: before.events + 1,
    });
  });
});
