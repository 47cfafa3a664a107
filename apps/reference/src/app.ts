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
}

export interface ReferenceServer {
  /** The server's origin, e.g. `http://127.0.0.1:3000`. */
  url: string;
  host: FlowHost;
  close(): Promise<void>;
}

const publicDir = fileURLToPath(new URL("../public", import.meta.url));

/** Starts the reference app: the notebook flow on the filesystem store, its API and a small page at `/`. */
export async function startReferenceServer(options: ReferenceServerOptions = {}): Promise<ReferenceServer> {
  const stores = createFsStores({ dir: options.dataDir ?? ".data" });
  const host = createFlowHost({ flows, stores, resolvePrincipal: developmentHeaderResolver });
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
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      await host.close();
      server.closeAllConnections();
      await closed;
      await stores.close();
    },
  };
}
