import type { WebhookProviderDefinition } from "@flowrt/engine";
import { githubWebhookVerifier, stripeWebhookVerifier } from "@flowrt/webhooks";

/**
 * The webhook secrets. FOR LOCAL DEVELOPMENT the defaults below are used; set `STRIPE_WEBHOOK_SECRET` and
 * `GITHUB_WEBHOOK_SECRET` to the ones your provider shows.
 */
export const webhookSecrets = {
  stripe: process.env.STRIPE_WEBHOOK_SECRET || "whsec_flowrt_reference_development",
  github: process.env.GITHUB_WEBHOOK_SECRET || "flowrt-reference-github-development",
};

const header = (headers: Record<string, string | string[] | undefined>, name: string) => {
  const value = headers[name];
  return typeof value === "string" ? value : undefined;
};

/**
 * The host's webhook providers: a Stripe-style one (`t=…,v1=…` over `<t>.<body>`, event type and id in the body)
 * and a GitHub-style one (`sha256=…` over the body, event type and delivery id in headers), both from
 * `@flowrt/webhooks`. Deliveries arrive at `POST {basePath}/notebook/webhooks/<provider>`.
 */
export const webhookProviders: Record<string, WebhookProviderDefinition> = {
  stripe: {
    verify: stripeWebhookVerifier(webhookSecrets.stripe),
    eventType: (payload) => {
      const type = (payload as { type?: unknown } | null)?.type;
      return typeof type === "string" ? type : null;
    },
    deliveryId: (payload) => {
      const id = (payload as { id?: unknown } | null)?.id;
      return typeof id === "string" ? id : undefined;
    },
  },
  github: {
    verify: githubWebhookVerifier(webhookSecrets.github),
    eventType: (_payload, headers) => header(headers, "x-github-event") ?? null,
    deliveryId: (_payload, headers) => header(headers, "x-github-delivery"),
  },
};
