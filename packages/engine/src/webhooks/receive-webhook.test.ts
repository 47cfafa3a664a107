import type { RequestRecord } from "@flowrt/core";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { settle } from "../testing/fixtures.js";
import { billing, stripeEvent, webhookProviders } from "./testing/webhook-flows.js";
import {
  alphaSignature,
  betaSignature,
  gammaHeaders,
  startWebhookHost,
  type WebhookTestHost,
} from "./testing/webhook-harness.js";

let t: WebhookTestHost;
let seen: { verified: Uint8Array[] };

beforeEach(async () => {
  seen = { verified: [] };
  t = await startWebhookHost({ flows: [billing], webhookProviders: webhookProviders(seen) });
});
afterEach(() => t.close());

const paid = (id = "evt_paid_1") => stripeEvent("invoice.paid", { id: "in_1", amount_paid: 1200 }, id);

/** A refusal or an ignored delivery: no session, no request record, no event. */
async function expectNothingDispatched() {
  expect(t.writes.sessions).toEqual([]);
  expect(t.writes.requests).toEqual([]);
  expect(t.writes.events).toEqual([]);
  expect(await t.allRequests()).toEqual([]);
}

async function dispatched(response: { status: number; body?: unknown }): Promise<RequestRecord> {
  expect(response.status).toBe(202);
  const { requestId } = response.body as { requestId: string };
  expect(typeof requestId).toBe("string");
  return (await settle(t.host, requestId)).record;
}

describe("401: the provider's verify refuses", () => {
  const now = Math.floor(Date.now() / 1000);
  const body = paid();
  it.each([
    [
      "signed with another secret",
      body,
      { "stripe-signature": alphaSignature(body, { secret: "whsec_other" }) },
    ],
    ["body tampered after signing", body.replace("1200", "1"), { "stripe-signature": alphaSignature(body) }],
    ["signature header missing", body, {}],
    ["signature header garbled", body, { "stripe-signature": "t=abc,v1=zz" }],
    [
      "timestamp older than the window",
      body,
      { "stripe-signature": alphaSignature(body, { timestamp: now - 301 - 60 }) },
    ],
    [
      "timestamp too far in the future",
      body,
      { "stripe-signature": alphaSignature(body, { timestamp: now + 301 + 60 }) },
    ],
  ])("%s → 401 webhook-verification-failed, nothing dispatched", async (_case, sent, headers) => {
    const response = await t.post("/billing/webhooks/stripe", sent, headers as Record<string, string>);
    expect(response.status).toBe(401);
    expect(response.headers["content-type"]).toBe("application/problem+json");
    expect(response.body).toMatchObject({ status: 401, code: "webhook-verification-failed" });
    await expectNothingDispatched();
  });

  it("a verify that throws answers 401 like one that returns false", async () => {
    const response = await t.post("/billing/webhooks/broken", "{}", {});
    expect(response.status).toBe(401);
    expect(response.body).toMatchObject({ code: "webhook-verification-failed" });
    await expectNothingDispatched();
  });

  it("a signature for one provider's format does not pass another provider's verify", async () => {
    const github = JSON.stringify({ ref: "refs/heads/main" });
    const response = await t.post("/billing/webhooks/stripe", github, {
      "x-hub-signature-256": betaSignature(github),
      "stripe-signature": betaSignature(github),
    });
    expect(response.status).toBe(401);
    await expectNothingDispatched();
  });
});

describe("routing refusals before verification", () => {
  it("a provider the flow does not declare is 404 and its verify never runs", async () => {
    const response = await t.post("/billing/webhooks/paypal", paid(), {
      "stripe-signature": alphaSignature(paid()),
    });
    expect(response.status).toBe(404);
    expect(seen.verified).toEqual([]);
    await expectNothingDispatched();
  });

  it("an unknown flow is 404", async () => {
    const response = await t.post("/nowhere/webhooks/stripe", paid(), {
      "stripe-signature": alphaSignature(paid()),
    });
    expect(response.status).toBe(404);
    expect(response.body).toMatchObject({ code: "flow-not-found" });
    await expectNothingDispatched();
  });

  it("a verified body the default JSON parse cannot read is 400 invalid-json; one a provider's own parse refuses is 400 webhook-parse-failed", async () => {
    const body = "{not json";
    const response = await t.post("/billing/webhooks/stripe", body, {
      "stripe-signature": alphaSignature(body),
    });
    expect(response.status).toBe(400);
    expect(response.body).toMatchObject({ code: "invalid-json" });
    const own = await t.post("/billing/webhooks/slack", body, gammaHeaders(body));
    expect(own.status).toBe(400);
    expect(own.body).toMatchObject({ code: "webhook-parse-failed" });
    await expectNothingDispatched();
  });

  it("a closed host refuses with 503 host-not-started and records nothing", async () => {
    await t.host.close();
    const response = await t.post("/billing/webhooks/stripe", paid(), {
      "stripe-signature": alphaSignature(paid()),
    });
    expect(response.status).toBe(503);
    expect(response.body).toMatchObject({ code: "host-not-started" });
    expect(seen.verified).toEqual([]);
    await expectNothingDispatched();
  });
});

describe("200: acknowledge answers a handshake", () => {
  it("a non-null acknowledge body is returned with 200 and nothing is dispatched", async () => {
    const body = JSON.stringify({
      type: "url_verification",
      challenge: "3eZbrw1aBm2rZgRNFdxV2595E9CY3gmdALWMmHkvFXO7tYXAYM8P",
    });
    const response = await t.post("/billing/webhooks/slack", body, gammaHeaders(body));
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ challenge: "3eZbrw1aBm2rZgRNFdxV2595E9CY3gmdALWMmHkvFXO7tYXAYM8P" });
    await expectNothingDispatched();
  });

  it("the handshake is only answered after verification", async () => {
    const body = JSON.stringify({ type: "url_verification", challenge: "c" });
    const response = await t.post("/billing/webhooks/slack", body, gammaHeaders(body, { secret: "wrong" }));
    expect(response.status).toBe(401);
    await expectNothingDispatched();
  });
});

describe("202 ignored: 2xx on purpose, since providers retry anything else", () => {
  it.each([
    ["no binding for the event type", stripeEvent("customer.created", { id: "cus_1" })],
    ["a payload without an event type", JSON.stringify({ id: "evt_untyped" })],
    ["`when` is falsy", stripeEvent("invoice.finalized", { id: "in_2", amount_due: 0 })],
    ["`when` throws", stripeEvent("invoice.voided", { id: "in_3" })],
  ])("%s → 202, nothing dispatched", async (_case, body) => {
    const response = await t.post("/billing/webhooks/stripe", body, {
      "stripe-signature": alphaSignature(body),
    });
    expect(response.status).toBe(202);
    expect(response.body).toMatchObject({ ignored: true });
    expect(response.body).not.toHaveProperty("requestId");
    await expectNothingDispatched();
  });

  it("`when` truthy dispatches the same binding", async () => {
    const body = stripeEvent("invoice.finalized", { id: "in_4", amount_due: 500 });
    const record = await dispatched(
      await t.post("/billing/webhooks/stripe", body, { "stripe-signature": alphaSignature(body) }),
    );
    expect(record).toMatchObject({ status: "completed", output: { invoiceId: "in_4", amountCents: 500 } });
  });
});

describe("202 { requestId }: dispatched, run after the answer", () => {
  it("records a webhook request the handler completes, under the flow's default user", async () => {
    const body = paid("evt_42");
    const response = await t.post("/billing/webhooks/stripe", body, {
      "stripe-signature": alphaSignature(body),
    });
    expect(Object.keys(response.body as object)).toEqual(["requestId"]);
    const record = await dispatched(response);
    expect(record).toMatchObject({
      flowId: "billing",
      action: "webhook:stripe:invoice.paid",
      userId: "billing-bot",
      status: "completed",
      metadata: {
        origin: "webhook",
        webhook: { provider: "stripe", eventType: "invoice.paid", deliveryId: "evt_42" },
      },
    });
    expect(record.output).toMatchObject({ invoiceId: "in_1", amountCents: 1200, userId: "billing-bot" });
    // The request's GET view carries the delivery id too.
    const view = await t.get(`/requests/${record.id}`);
    expect(view.body).toMatchObject({ request: { metadata: { webhook: { deliveryId: "evt_42" } } } });
  });

  it("deliveryId reaches the event the binding sees (and the request.started event)", async () => {
    const body = JSON.stringify({ ref: "refs/heads/main" });
    const response = await t.post("/billing/webhooks/github", body, {
      "x-hub-signature-256": betaSignature(body),
      "x-github-event": "push",
      "x-github-delivery": "72d3162e-cc78-11e3-81ab-4c9367dc0958",
    });
    const record = await dispatched(response);
    expect(record.output).toEqual({
      ref: "refs/heads/main",
      deliveryId: "72d3162e-cc78-11e3-81ab-4c9367dc0958",
    });
    expect(record.metadata).toMatchObject({
      webhook: { deliveryId: "72d3162e-cc78-11e3-81ab-4c9367dc0958" },
    });
    const started = t.writes.events.find((e) => e.requestId === record.id && e.type === "request.started");
    expect(started?.data).toMatchObject({ webhook: { deliveryId: "72d3162e-cc78-11e3-81ab-4c9367dc0958" } });
  });

  it("no deduplication: the same delivery twice makes two requests, both run", async () => {
    const body = paid("evt_dup");
    const headers = { "stripe-signature": alphaSignature(body) };
    const first = await dispatched(await t.post("/billing/webhooks/stripe", body, headers));
    const second = await dispatched(await t.post("/billing/webhooks/stripe", body, headers));
    expect(first.id).not.toBe(second.id);
    expect([first.status, second.status]).toEqual(["completed", "completed"]);
    expect(
      [first.metadata, second.metadata].map((m) => (m.webhook as { deliveryId: string }).deliveryId),
    ).toEqual(["evt_dup", "evt_dup"]);
    expect(await t.allRequests()).toHaveLength(2);
  });
});

describe("raw bytes are what verify sees, for any content type", () => {
  it("a JSON body keeps its exact bytes (whitespace, key order, escapes, non-ASCII)", async () => {
    const body = Buffer.from(
      '{ "type":"invoice.paid",\r\n  "id" : "evt_raw", "data": {"object": {"id":"in_\\u00e9", "amount_paid": 1.0e3, "memo":"café ☕"}} }  \n',
    );
    const response = await t.post("/billing/webhooks/stripe", body, {
      "stripe-signature": alphaSignature(body),
    });
    const record = await dispatched(response);
    expect(Buffer.from(seen.verified.at(-1)!).equals(body)).toBe(true);
    expect(record.output).toMatchObject({ invoiceId: "in_é", amountCents: 1000 });
  });

  it("a form-encoded body keeps its exact bytes and the provider's parse reads it", async () => {
    const body = Buffer.from(
      "token=x&team_id=T1&command=%2Fdeploy&text=prod+eu%2Dwest&response_url=https%3A%2F%2Fh",
    );
    const response = await t.post("/billing/webhooks/slack", body, {
      ...gammaHeaders(body),
      "content-type": "application/x-www-form-urlencoded",
    });
    const record = await dispatched(response);
    expect(Buffer.from(seen.verified.at(-1)!).equals(body)).toBe(true);
    expect(record).toMatchObject({
      action: "webhook:slack:/deploy",
      status: "completed",
      output: { ran: "/deploy prod eu-west" },
    });
  });

  it("an empty body is verified as zero bytes (and fails JSON parsing after verification)", async () => {
    const response = await t.post("/billing/webhooks/github", "", {
      "x-hub-signature-256": betaSignature(""),
      "x-github-event": "push",
    });
    expect(seen.verified.at(-1)?.byteLength).toBe(0);
    expect(response.status).toBe(400);
    await expectNothingDispatched();
  });
});
