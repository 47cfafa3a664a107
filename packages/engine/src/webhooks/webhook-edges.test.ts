import { defineFlow, handler } from "@flowrt/core";
import { alphaWebhookVerifier } from "@flowrt/webhooks";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import type { WebhookProviderDefinition } from "../host-options.js";
import type { HostLogger } from "../logger.js";
import { settle } from "../testing/fixtures.js";
import { crm, stripeEvent, webhookProviders } from "./testing/webhook-flows.js";
import { alphaSignature, SECRET, startWebhookHost, type WebhookTestHost } from "./testing/webhook-harness.js";

const DELETING_SESSION = "s-being-deleted";
const echo = handler({ name: "echo", execute: async (input) => input });

const edges = defineFlow({
  kind: "edges",
  authentication: { requireUser: false, defaultUserId: "bot" },
  webhooks: {
    stripe: {
      on: {
        "order.paid": { block: echo, input: (event) => ({ deliveryId: event.deliveryId ?? null }) },
        "order.badSession": { block: echo, sessionId: () => "not a valid id!" },
        "order.noSession": { block: echo, sessionId: () => null },
        "order.deletingSession": { block: echo, sessionId: () => DELETING_SESSION },
        "order.sessionThrows": {
          block: echo,
          sessionId: async () => {
            throw new Error("lookup failed");
          },
        },
      },
    },
  },
});

let t: WebhookTestHost | undefined;
afterEach(async () => {
  await t?.close();
  t = undefined;
});

const warnings: string[] = [];
const logger: HostLogger = {
  debug() {},
  info() {},
  warn: (data: object | string, message?: string) =>
    void warnings.push(typeof data === "string" ? data : message!),
  error() {},
  child: () => logger,
};

async function start(provider: Partial<WebhookProviderDefinition>) {
  warnings.length = 0;
  t = await startWebhookHost({
    flows: [edges],
    logger,
    webhookProviders: {
      stripe: {
        verify: alphaWebhookVerifier(SECRET),
        eventType: (payload) => (payload as { type: string }).type,
        ...provider,
      },
    },
  });
  // The start's warning that the flow has no resolver is not what these tests look for.
  warnings.length = 0;
  return t;
}

async function post(host: WebhookTestHost, type: string) {
  const body = stripeEvent(type, { id: "o_1" });
  return host.post("/edges/webhooks/stripe", body, { "stripe-signature": alphaSignature(body) });
}

function expectNothingDispatched(host: WebhookTestHost) {
  expect(host.writes).toEqual({ sessions: [], requests: [], events: [] });
}

describe("provider extractors and binding functions that misbehave", () => {
  it("an eventType extractor that throws makes the delivery untyped: ignored with 202, logged", async () => {
    const host = await start({
      eventType: () => {
        throw new Error("no type here");
      },
    });
    const response = await post(host, "order.paid");
    expect(response.status).toBe(202);
    expect(response.body).toMatchObject({ ignored: true });
    expect(warnings).toEqual([expect.stringContaining("eventType extractor threw")]);
    expectNothingDispatched(host);
  });

  it("a deliveryId extractor that throws or yields a non-string leaves the delivery without an id, and it still runs", async () => {
    for (const deliveryId of [
      () => {
        throw new Error("no id");
      },
      () => 42 as unknown as string,
      () => "",
    ]) {
      const host = await start({ deliveryId });
      const response = await post(host, "order.paid");
      const { record } = await settle(host.host, (response.body as { requestId: string }).requestId);
      expect(record).toMatchObject({ status: "completed", output: { deliveryId: null } });
      expect(record.metadata.webhook).toEqual({ provider: "stripe", eventType: "order.paid" });
      await host.close();
      t = undefined;
    }
  });

  it("an acknowledge that throws is a 500 (the provider's retry is wanted) and dispatches nothing", async () => {
    const host = await start({
      acknowledge: () => {
        throw new Error("handshake bug");
      },
    });
    const response = await post(host, "order.paid");
    expect(response.status).toBe(500);
    expect(response.body).toMatchObject({ code: "internal-error", detail: "An unexpected error occurred." });
    expectNothingDispatched(host);
  });

  it("a sessionId that is not a valid session id makes a failed request (202, invalid-request); nothing runs", async () => {
    const host = await start({});
    const response = await post(host, "order.badSession");
    expect(response.status).toBe(202);
    const { record, events } = await settle(host.host, (response.body as { requestId: string }).requestId);
    expect(record).toMatchObject({ status: "failed", error: { code: "invalid-request" } });
    expect(events.map((e) => e.type)).toEqual(["request.failed"]);
    expect(host.writes.sessions).toHaveLength(1);
    expect(host.writes.sessions[0]).toMatchObject({ id: record.sessionId, metadata: { ephemeral: true } });
    expect(warnings).toEqual([expect.stringContaining("refused by its session")]);
  });

  it("a sessionId naming a session being deleted is refused as session-not-found: a failed request in a session of its own", async () => {
    const host = await start({});
    const session = await host.host.createSession(
      "edges",
      { source: "test", principal: { userId: "bot" } },
      { sessionId: DELETING_SESSION },
    );
    expect(session.id).toBe(DELETING_SESSION);
    expect(await host.host.stores.sessions.markDeleting(session.id)).toBe(true);
    const before = { requests: host.writes.requests.length, events: host.writes.events.length };
    const response = await post(host, "order.deletingSession");
    expect(response.status).toBe(202);
    const { record } = await settle(host.host, (response.body as { requestId: string }).requestId);
    expect(record).toMatchObject({ status: "failed", error: { code: "session-not-found" } });
    expect(record.sessionId).not.toBe(session.id);
    // Nothing landed in the session being deleted.
    const landed = host.writes.requests.slice(before.requests).filter((r) => r.sessionId === session.id);
    expect(landed).toEqual([]);
    expect(await host.host.stores.requests.listBySession(session.id, { limit: 10 })).toEqual([]);
    expect(warnings).toEqual([expect.stringContaining("refused by its session")]);
  });

  it("a sessionId function that answers null (or undefined) runs the delivery in a fresh ephemeral session", async () => {
    const host = await start({});
    const response = await post(host, "order.noSession");
    expect(response.status).toBe(202);
    const { record } = await settle(host.host, (response.body as { requestId: string }).requestId);
    expect(record.status).toBe("completed");
    expect(host.writes.sessions).toEqual([
      expect.objectContaining({ id: record.sessionId, metadata: { ephemeral: true } }),
    ]);
  });

  it("a sessionId function that throws is a 500 with nothing dispatched (no session to record a failure on)", async () => {
    const host = await start({});
    const response = await post(host, "order.sessionThrows");
    expect(response.status).toBe(500);
    expectNothingDispatched(host);
  });
});

describe("inputs JSON cannot hold are failing inputs: a failed request, never a 500", () => {
  let ran = 0;
  const counted = handler({
    name: "counted",
    inputSchema: z.any(),
    execute: async () => {
      ran++;
      return "ran";
    },
  });
  const odd = defineFlow({
    kind: "odd",
    authentication: { requireUser: false, defaultUserId: "bot" },
    webhooks: {
      stripe: {
        on: {
          "deep.event": { block: counted },
          "bigint.event": { block: counted, input: () => ({ amount: 10n }) },
          "cycle.event": {
            block: counted,
            input: () => {
              const node: Record<string, unknown> = { id: "n" };
              node.self = node;
              return node;
            },
          },
        },
      },
    },
  });
  const deliver = async (host: WebhookTestHost, body: string) => {
    const response = await host.post("/odd/webhooks/stripe", body, {
      "stripe-signature": alphaSignature(body),
    });
    expect(response.status).toBe(202);
    return settle(host.host, (response.body as { requestId: string }).requestId);
  };

  it("a payload nested deeper than the store can serialize, an input with a BigInt, an input with a cycle", async () => {
    ran = 0;
    t = await startWebhookHost({ flows: [odd], webhookProviders: webhookProviders() });
    let nested = "null";
    for (let depth = 0; depth < 20_000; depth++) nested = `{"a":${nested}}`;
    const bodies = [
      `{"id":"evt_deep","type":"deep.event","data":${nested}}`,
      stripeEvent("bigint.event", { id: "o_2" }),
      stripeEvent("cycle.event", { id: "o_3" }),
    ];
    for (const body of bodies) {
      const { record, events } = await deliver(t, body);
      expect(record).toMatchObject({ status: "failed", input: null, error: { code: "invalid-input" } });
      expect(record.error?.message).toContain("cannot be stored as JSON");
      expect(events.map((e) => e.type)).toEqual(["request.failed"]);
    }
    expect(ran).toBe(0);
    // Each delivery stored its session with its failed request: nothing is left behind without a request.
    expect(t.writes.sessions).toHaveLength(3);
    expect(t.writes.requests).toHaveLength(3);
  });
});

describe("provider and event names that are also Object.prototype members", () => {
  it("a provider and an event type named `__proto__` route and dispatch like any other", async () => {
    const proto = defineFlow({
      kind: "proto",
      authentication: { requireUser: false, defaultUserId: "bot" },
      webhooks: { ["__proto__"]: { on: { ["__proto__"]: { block: echo } } } },
    });
    t = await startWebhookHost({
      flows: [proto],
      webhookProviders: {
        ["__proto__"]: {
          verify: alphaWebhookVerifier(SECRET),
          eventType: (payload) => (payload as { type: string }).type,
        },
      },
    });
    const body = JSON.stringify({ id: "evt_p", type: "__proto__" });
    const response = await t.post("/proto/webhooks/__proto__", body, {
      "stripe-signature": alphaSignature(body),
    });
    expect(response.status).toBe(202);
    const { record } = await settle(t.host, (response.body as { requestId: string }).requestId);
    expect(record).toMatchObject({ status: "completed", action: "webhook:__proto__:__proto__" });
  });
});

describe("principal resolution happens after routing", () => {
  it("an ignored delivery never reaches the flow's resolver (it would have refused it with 401)", async () => {
    t = await startWebhookHost({ flows: [crm], webhookProviders: webhookProviders() });
    const ignored = stripeEvent("customer.created", { id: "cus_1" });
    const response = await t.post("/crm/webhooks/stripe", ignored, {
      "stripe-signature": alphaSignature(ignored),
    });
    expect(response.status).toBe(202);
    expect(response.body).toMatchObject({ ignored: true });
    expectNothingDispatched(t);
  });
});
