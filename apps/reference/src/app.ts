import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { fileURLToPath } from "node:url";
import { createFlowHost, type FlowHost } from "@flowrt/engine";
import { createFlowRouter, urlHost } from "@flowrt/express";
import { inspectorInbound } from "@flowrt/inspector";
import { createFsStores } from "@flowrt/store-fs";
import express from "express";
import { devTokenRoute } from "./auth/token-route.js";
import { flows, inbound, resolvePrincipal, webhookProviders } from "./flows.js";
import { buildPageScript } from "./page-bundle.js";

export interface ReferenceServerOptions {
  /** @default 3000 */
  port?: number;
  /** @default "127.0.0.1" */
  host?: string;
  /** Where the filesystem store keeps its data. @default ".data" */
  dataDir?: string;
  /** How long {@link ReferenceServer.close} lets running requests finish. @default no limit */
  graceMs?: number;
  /**
   * The development inspector at `/api/flows/_inspector` (`@flowrt/inspector`; each signed-in user sees their own
   * sessions). @default true unless NODE_ENV is "production"
   */
  inspector?: boolean;
}

export interface ReferenceServer {
  /** The server's origin, e.g. `http://127.0.0.1:3000`. */
  url: string;
  host: FlowHost;
  /**
   * Drains the host while still listening (`/readyz` answers 503, new work is refused, running requests get the
   * grace period; durable ones still running then are left for the next start), then stops listening.
   */
  close(): Promise<void>;
}

const publicDir = fileURLToPath(new URL("../public", import.meta.url));

/**
 * Starts the reference app: the notebook flow on the filesystem store; its API, MCP endpoint and board feed through
 * `@flowrt/express`; the development inspector; the development sign-in route; and the page at `/`.
 */
export async function startReferenceServer(options: ReferenceServerOptions = {}): Promise<ReferenceServer> {
  const stores = createFsStores({ dir: options.dataDir ?? ".data" });
  const host = createFlowHost({
    flows,
    stores,
    resolvePrincipal,
    webhookProviders,
    // The development inspector beside the API: it binds no route while `inspector` is off.
    inspector: options.inspector ?? process.env.NODE_ENV !== "production",
    inbound: [...inbound, inspectorInbound()],
    ...(options.graceMs !== undefined ? { shutdownGraceMs: options.graceMs } : {}),
  });
  const pageScript = await buildPageScript();
  await host.start();

  const app = express();
  app.disable("x-powered-by");
  app.use(createFlowRouter(host));
  app.post("/auth/token", express.json({ limit: "4kb" }), devTokenRoute);
  app.get("/app.js", (_req, res) => {
    res.type("text/javascript").set("cache-control", "no-cache").send(pageScript);
  });
  app.use(express.static(publicDir));

  const bindHost = options.host ?? "127.0.0.1";
  const server: Server = await new Promise((resolve, reject) => {
    const listening = app.listen(options.port ?? 3000, bindHost, (error?: Error) =>
      error ? reject(error) : resolve(listening),
    );
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${urlHost(bindHost)}:${port}`,
    host,
    async close() {
      await host.close();
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      await closed;
      await stores.close();
    },
  };
}
