/**
 * Child process for the webhook restart test: a host over an fs directory, served on 127.0.0.1, whose
 * store never lets a request be claimed, so a delivery it acknowledges with 202 has not run (nor
 * started) when the parent SIGKILLs it.
 */
import type { FlowStores } from "@flowrt/core";
import { createHttpHandler } from "@flowrt/engine";
import { createFsStores } from "@flowrt/store-fs";
import { alphaWebhookVerifier } from "@flowrt/webhooks";
import { createFlowHost } from "../../host.js";
import { silentLogger } from "../../logger.js";
import { ledger, ledgerProviders } from "./webhook-durable-flow.js";
import { SECRET, serveOverSocket } from "./webhook-harness.js";

const [dir] = process.argv.slice(2);
const stores = createFsStores({ dir: dir! });
const stalled: FlowStores = {
  ...stores,
  requests: new Proxy(stores.requests, {
    get(target, name, receiver) {
      // Claims (and every other record update) hang: the host accepts work it never starts.
      if (name === "update") return () => new Promise(() => {});
      const value = Reflect.get(target, name, receiver);
      return typeof value === "function" ? value.bind(target) : value;
    },
  }),
};
const host = createFlowHost({
  flows: [ledger],
  stores: stalled,
  logger: silentLogger,
  recoveryIntervalMs: 0,
  webhookProviders: ledgerProviders(alphaWebhookVerifier(SECRET)),
});
await host.start();
const server = await serveOverSocket(createHttpHandler(host));
process.stdout.write(`listening ${server.url}\n`);
