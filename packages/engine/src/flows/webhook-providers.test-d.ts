import { defineFlow, handler } from "@flowrt/core";
import { createMemoryStores } from "@flowrt/store-memory";
import { alphaWebhookVerifier, betaWebhookVerifier } from "@flowrt/webhooks";
import { describe, expectTypeOf, it } from "vitest";
import { createFlowHost } from "../host.js";
import type { WebhookProviderDefinition } from "../host-options.js";

const record = handler({ name: "record", execute: async () => "ok" });
const flows = [
  defineFlow({
    kind: "payments",
    authentication: { requireUser: false, defaultUserId: "stripe" },
    webhooks: { stripe: { on: { "invoice.paid": { block: record } } } },
  }),
];
const stores = createMemoryStores();

describe("webhook provider types", () => {
  it("takes extractors written as the providers' documentation (and @flowrt/webhooks' README) write them", () => {
    // The webhooks README's host example, as written.
    createFlowHost({
      flows,
      stores,
      webhookProviders: {
        stripe: {
          verify: alphaWebhookVerifier("whsec"),
          eventType: (p) => p.type,
          deliveryId: (p) => p.id,
        },
        github: {
          verify: betaWebhookVerifier("secret"),
          eventType: (_p, headers) => headers["x-github-event"] ?? null,
          deliveryId: (_p, headers) => headers["x-github-delivery"],
        },
      },
    });
    // The architecture's: `eventType: (payload) => payload.type, deliveryId: (payload) => payload.id`.
    const stripe: WebhookProviderDefinition = {
      verify: alphaWebhookVerifier("whsec"),
      eventType: (payload) => payload.type,
      deliveryId: (payload) => payload.id,
    };
    expectTypeOf(stripe.eventType).parameter(0).toBeAny();
  });

  it("types the payload from a parse when the definition names it", () => {
    const typed: WebhookProviderDefinition<{ kind: string; ref: string }> = {
      verify: () => true,
      parse: (raw) => JSON.parse(Buffer.from(raw).toString("utf8")),
      eventType: (payload) => payload.kind,
      deliveryId: (payload) => payload.ref,
    };
    expectTypeOf(typed.eventType).parameter(0).toEqualTypeOf<{ kind: string; ref: string }>();
    const strict: WebhookProviderDefinition<unknown> = {
      verify: () => true,
      // @ts-expect-error an unknown payload must be narrowed before it is read
      eventType: (payload) => payload.type,
    };
    expectTypeOf(strict.verify).returns.toEqualTypeOf<boolean | Promise<boolean>>();
  });
});
