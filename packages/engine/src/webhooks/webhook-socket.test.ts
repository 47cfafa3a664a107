import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { settle } from "../testing/fixtures.js";
import { billing, jobs, slowStarted, stripeEvent, webhookProviders } from "./testing/webhook-flows.js";
import {
  alphaSignature,
  gammaHeaders,
  serveOverSocket,
  startWebhookHost,
  type WebhookTestHost,
} from "./testing/webhook-harness.js";

let t: WebhookTestHost;
let server: Awaited<ReturnType<typeof serveOverSocket>>;
let seen: { verified: Uint8Array[] };

beforeEach(async () => {
  seen = { verified: [] };
  t = await startWebhookHost({ flows: [billing, jobs], webhookProviders: webhookProviders(seen) });
  server = await serveOverSocket(t.http);
});
afterEach(async () => {
  await server.close();
  await t.close();
});

describe("the webhook route over a real socket", () => {
  it("a handler taking 5 s does not delay the 202: the request is still running when the answer is read", async () => {
    const body = stripeEvent("job.started", { id: "job_1" });
    const response = await fetch(`${server.url}/jobs/webhooks/stripe`, {
      method: "POST",
      headers: { "content-type": "application/json", "stripe-signature": alphaSignature(body) },
      body,
    });
    expect(response.status).toBe(202);
    const { requestId } = (await response.json()) as { requestId: string };

    // Read after the 202: the handler has not finished (it may not even have started yet).
    const atAnswer = await t.host.stores.requests.get(requestId);
    expect(["queued", "running"]).toContain(atAnswer?.status);
    expect(atAnswer?.output).toBeUndefined();

    // Wait until the handler is inside its 5 s: the request is running, with no terminal event.
    while (!slowStarted.requestIds.includes(requestId)) await new Promise((r) => setTimeout(r, 5));
    const running = await fetch(`${server.url}/requests/${requestId}`);
    expect(((await running.json()) as { request: { status: string } }).request.status).toBe("running");
    const events = await t.host.stores.requests.readEvents(requestId);
    expect(events.map((e) => e.type)).not.toContain("request.completed");

    // Stop it rather than wait the 5 s: later outcomes land on the record, not on the (long sent) response.
    const abort = await fetch(`${server.url}/requests/${requestId}/abort`, { method: "POST" });
    expect(abort.status).toBe(202);
    const { record } = await settle(t.host, requestId);
    expect(record.status).toBe("aborted");
    expect(record.output).toBeUndefined();
  });

  it("JSON and form-encoded bodies reach verify byte for byte through node:http", async () => {
    const json = Buffer.from(
      `{"id":"evt_s","type":"invoice.paid" ,\n"data":{"object":{"id":"in_s","amount_paid":7}}}\r\n`,
    );
    const first = await fetch(`${server.url}/billing/webhooks/stripe`, {
      method: "POST",
      headers: { "content-type": "application/json", "stripe-signature": alphaSignature(json) },
      body: json,
    });
    expect(first.status).toBe(202);
    expect(Buffer.from(seen.verified.at(-1)!).equals(json)).toBe(true);

    const form = Buffer.from("command=%2Fdeploy&text=blue%20green&user_name=ada");
    const second = await fetch(`${server.url}/billing/webhooks/slack`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", ...gammaHeaders(form) },
      body: form,
    });
    expect(second.status).toBe(202);
    expect(Buffer.from(seen.verified.at(-1)!).equals(form)).toBe(true);
    const { requestId } = (await second.json()) as { requestId: string };
    expect((await settle(t.host, requestId)).record.output).toEqual({ ran: "/deploy blue green" });
  });

  it("a tampered delivery is 401 over the socket too, with nothing recorded", async () => {
    const body = stripeEvent("job.started", { id: "job_2" });
    const response = await fetch(`${server.url}/jobs/webhooks/stripe`, {
      method: "POST",
      headers: { "stripe-signature": alphaSignature(body) },
      body: body.replace("job_2", "job_3"),
    });
    expect(response.status).toBe(401);
    expect(response.headers.get("content-type")).toBe("application/problem+json");
    expect(await t.allRequests()).toEqual([]);
    expect(t.writes.events).toEqual([]);
  });
});
