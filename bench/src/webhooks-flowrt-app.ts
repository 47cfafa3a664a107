/**
 * The flowrt side of the webhook benchmarks: a `payments` flow whose Stripe-style binding runs a handler that
 * returns at once (or after `handlerMs`), on the memory store with finished requests purged as production would
 * (so a long run does not measure a growing heap), served by `createFlowRouter` (mounted on an Express app by the caller). Used by
 * `webhooks-server.ts` (one server per process) and `pair-server.ts` (the baseline's and this checkout's in one).
 * The `ingest` benchmark passes its own stores (Postgres) and counts the handler's runs (`onRun`).
 */
import { setTimeout as sleep } from "node:timers/promises";
import { defineFlow, type FlowStores, handler } from "@flowrt/core";
import { createFlowHost, silentLogger } from "@flowrt/engine";
import { createFlowRouter } from "@flowrt/express";
import { createMemoryStores } from "@flowrt/store-memory";
import { alphaWebhookVerifier } from "@flowrt/webhooks";
import express, { type Express, type RequestHandler } from "express";
import { z } from "zod";

export const BENCH_SECRET = "whsec_bench";
export const BENCH_EVENT = "invoice.paid";
/** Where the binding is served. */
export const WEBHOOK_PATH = "/api/flows/payments/webhooks/stripe";

export const benchVerifier = () => alphaWebhookVerifier(BENCH_SECRET);

export interface WebhookFlowrtAppOptions {
  /**
   * The host's stores, closed with the app; the host then keeps its default retention. @default memory stores
   * that keep finished requests 5 s (at most 5000), purged every second
   */
  stores?: FlowStores;
  /** Called by the handler each time it runs. */
  onRun?: () => void;
}

export async function createWebhookFlowrtApp(
  handlerMs: number,
  options: WebhookFlowrtAppOptions = {},
): Promise<{ router: RequestHandler; app: Express; close(): Promise<void> }> {
  const { onRun } = options;
  const recordPayment = handler({
    name: "recordPayment",
    inputSchema: z.object({ id: z.string(), type: z.string() }).passthrough(),
    execute: async (input) => {
      if (handlerMs > 0) await sleep(handlerMs);
      onRun?.();
      return { id: input.id };
    },
  });
  const payments = defineFlow({
    kind: "payments",
    authentication: { requireUser: false, defaultUserId: "stripe" },
    webhooks: { stripe: { on: { [BENCH_EVENT]: { block: recordPayment } } } },
  });
  const stores =
    options.stores ??
    createMemoryStores({ retention: { maxAgeMs: 5_000, maxCount: 5_000, intervalMs: 1_000 } });
  const host = createFlowHost({
    flows: [payments],
    stores,
    logger: silentLogger,
    webhookProviders: {
      stripe: {
        verify: benchVerifier(),
        eventType: (payload) => (payload as { type?: string }).type ?? null,
        deliveryId: (payload) => (payload as { id?: string }).id,
      },
    },
  });
  await host.start();
  const router = createFlowRouter(host);
  // An app of this tree's Express, for a caller serving the router alone (a pair server: each side its own Express).
  const app = express();
  app.use(router);
  return {
    router,
    app,
    async close() {
      await host.close();
      await stores.close();
    },
  };
}
