import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { fileURLToPath } from "node:url";
import { createFlowHost, type FlowHost } from "@flowrt/engine";
import { createFlowRouter, urlHost } from "@flowrt/express";
import { createFsStores } from "@flowrt/store-fs";
import express from "express";
import { developmentHeaderResolver } from "./dev-resolver.js";
import { flows } from "./flows.js";

export interface ReferenceServerOptions {
  /** @default 3000 */
  port?: number;
  /** @default "127.0.0.1" */
  host?: string;
  /** Where the filesystem store keeps its data. @default ".data" */
  dataDir?: string;
  /** How long {@link ReferenceServer.close} lets running requests finish. @default no limit */
  graceMs?: number;
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

/** Starts the reference app: the notebook flow on the filesystem store, its API and a small page at `/`. */
export async function startReferenceServer(options: ReferenceServerOptions = {}): Promise<ReferenceServer> {
  const stores = createFsStores({ dir: options.dataDir ?? ".data" });
  const host = createFlowHost({
    flows,
    stores,
    resolvePrincipal: developmentHeaderResolver,
    ...(options.graceMs !== undefined ? { shutdownGraceMs: options.graceMs } : {}),
  });
  await host.start();

  const app = express();
  app.disable("x-powered-by");
  app.use(createFlowRouter(host));
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
