import type { AddressInfo } from "node:net";
import type { AnyFlowDefinition } from "@flowrt/core";
import { createFlowHost, type FlowHost, type FlowHostOptions, silentLogger } from "@flowrt/engine";
import { createMemoryStores } from "@flowrt/store-memory";
import express, { type Express } from "express";
import { createFlowRouter, type FlowRouterOptions } from "../create-flow-router.js";

export interface Served {
  host: FlowHost;
  app: Express;
  url: string;
  close(): Promise<void>;
}

/**
 * A started host behind a real Express app on an ephemeral port. `before` mounts middleware ahead of
 * the flow router (e.g. a global `express.json()`).
 */
export async function serve(
  flows: AnyFlowDefinition[],
  options: {
    router?: FlowRouterOptions;
    host?: Partial<FlowHostOptions>;
    before?: (app: Express) => void;
  } = {},
): Promise<Served> {
  const host = createFlowHost({ flows, stores: createMemoryStores(), logger: silentLogger, ...options.host });
  await host.start();
  const app = express();
  options.before?.(app);
  app.use(createFlowRouter(host, options.router));
  app.get("/health", (_req, res) => {
    res.json({ ok: true });
  });
  const server = app.listen(0, "127.0.0.1");
  await new Promise<void>((resolve) => server.once("listening", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    host,
    app,
    url: `http://127.0.0.1:${port}`,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await host.close();
      await host.stores.close();
    },
  };
}
