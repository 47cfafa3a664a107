/**
 * The host of the `retention` benchmark: a memory-store host with one webhook provider (`stripe`, the alpha
 * verifier) and one flow bound to its `invoice.paid` events without a `sessionId`, so every delivery runs in an
 * ephemeral session of its own; the host's retention is the one under test. Served over real HTTP on a free
 * loopback port (Express + `createFlowRouter`), in this process, so that the benchmark can count what the store
 * holds between deliveries.
 */
import { createHmac } from "node:crypto";
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { defineFlow, type FlowStores, handler, type RetentionOptions } from "@flowrt/core";
import { createFlowHost, type FlowHost, silentLogger } from "@flowrt/engine";
import { createFlowRouter } from "@flowrt/express";
import { createMemoryStores } from "@flowrt/store-memory";
import { alphaWebhookVerifier } from "@flowrt/webhooks";
import express from "express";
import { z } from "zod";

const SECRET = "whsec_retention_bench";
const EVENT = "invoice.paid";

export interface RetentionHost {
  host: FlowHost;
  stores: FlowStores;
  /** `http://127.0.0.1:<port>` */
  origin: string;
  /** The path deliveries are posted to. */
  path: string;
  /** How many times the bound handler ran to its end. */
  handled(): number;
  close(): Promise<void>;
}

/** A signed delivery of event `i` (a unique event id, about 200 bytes), as the provider would send it. */
export function signedEvent(i: number): { body: string; headers: Record<string, string> } {
  const body = JSON.stringify({
    id: `evt_${i}`,
    object: "event",
    type: EVENT,
    data: { object: { id: `in_${i}` } },
  });
  const t = Math.floor(Date.now() / 1000);
  const v1 = createHmac("sha256", SECRET).update(`${t}.${body}`).digest("hex");
  return { body, headers: { "content-type": "application/json", "stripe-signature": `t=${t},v1=${v1}` } };
}

export async function startRetentionHost(retention: RetentionOptions): Promise<RetentionHost> {
  let handled = 0;
  const recordPayment = handler({
    name: "recordPayment",
    inputSchema: z.object({ id: z.string(), type: z.string() }).passthrough(),
    execute: async (input) => {
      handled++;
      return { id: input.id };
    },
  });
  const payments = defineFlow({
    kind: "payments",
    authentication: { requireUser: false, defaultUserId: "stripe" },
    webhooks: { stripe: { on: { [EVENT]: { block: recordPayment } } } },
  });
  const stores = createMemoryStores();
  const host = createFlowHost({
    flows: [payments],
    stores,
    logger: silentLogger,
    retention,
    webhookProviders: {
      stripe: {
        verify: alphaWebhookVerifier(SECRET),
        eventType: (payload) => (payload as { type?: string }).type ?? null,
        deliveryId: (payload) => (payload as { id?: string }).id,
      },
    },
  });
  await host.start();
  const app = express();
  app.disable("x-powered-by");
  app.use(createFlowRouter(host));
  const server: Server = await new Promise((resolve, reject) => {
    const listening = app.listen(0, "127.0.0.1", (error?: Error) =>
      error ? reject(error) : resolve(listening),
    );
  });
  return {
    host,
    stores,
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    path: "/api/flows/payments/webhooks/stripe",
    handled: () => handled,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await host.close();
      await stores.close();
    },
  };
}
