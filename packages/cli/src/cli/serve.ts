import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { FlowStores } from "@flowrt/core";
import { createFlowHost, type FlowHost, type InboundAdapter } from "@flowrt/engine";
import { createFlowRouter, isLoopbackHost, urlHost } from "@flowrt/express";
import express from "express";
import type { FlowsModule } from "./load-flows-module.js";
import { openStores, type StoreSpec, UsageError } from "./store-spec.js";

export interface ServeOptions {
  port: number;
  host: string;
  store: StoreSpec;
  /** @default the host's default, "/api/flows" */
  basePath?: string;
  /** How long {@link RunningServer.close} lets running requests finish. @default no limit */
  graceMs?: number;
  /**
   * `flowrt dev`: the host's development inspector on (the JSON debug route, and `@flowrt/inspector`'s page when
   * given), and a folder of static files (the application's page) served at `/`.
   */
  dev?: { inspector?: InboundAdapter; publicDir?: string };
}

export interface RunningServer {
  /** `http://<host>:<port><basePath>` */
  url: string;
  host: FlowHost;
  /**
   * Drains the host while still listening (`/readyz` answers 503, new work is refused, running requests get the
   * grace period, streams go on), then stops listening and closes the stores.
   */
  close(): Promise<void>;
}

/** Flows that would be open to anyone: no resolver of their own and none from the module. */
export function unauthenticatedFlows(module: FlowsModule): string[] {
  if (module.resolvePrincipal) return [];
  return module.flows.filter((flow) => !flow.authentication.resolvePrincipal).map((flow) => flow.id);
}

/**
 * Refuses a non-loopback bind while any flow is unauthenticated (their management endpoints are open and
 * `body.userId` is trusted). Checked before any store is opened, so a refusal writes nothing.
 */
export function assertSafeBind(module: FlowsModule, host: string): void {
  if (isLoopbackHost(host)) return;
  const open = unauthenticatedFlows(module);
  if (open.length === 0) return;
  throw new UsageError(
    `Refusing to listen on ${host}: ${open.length === 1 ? "flow" : "flows"} ${open.map((id) => `"${id}"`).join(", ")} ` +
      `${open.length === 1 ? "has" : "have"} no authentication (no resolvePrincipal of ${open.length === 1 ? "its" : "their"} own, and the module exports none). ` +
      "Add a resolver, or listen on a loopback address (127.0.0.1, ::1, localhost).",
  );
}

function listen(server: Server, port: number, host: string): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => {
      server.off("error", reject);
      resolve();
    });
  });
}

/** Serves a flows module over HTTP: stores, host, Express app with the flow router. */
export async function serveFlows(module: FlowsModule, options: ServeOptions): Promise<RunningServer> {
  assertSafeBind(module, options.host);
  const stores: FlowStores = await openStores(options.store);
  let host: FlowHost | undefined;
  let server: Server | undefined;
  try {
    host = createFlowHost({
      flows: module.flows,
      stores,
      ...(module.resolvePrincipal ? { resolvePrincipal: module.resolvePrincipal } : {}),
      ...(module.webhookProviders ? { webhookProviders: module.webhookProviders } : {}),
      ...(module.inbound || options.dev?.inspector
        ? { inbound: [...(module.inbound ?? []), ...(options.dev?.inspector ? [options.dev.inspector] : [])] }
        : {}),
      ...(options.dev ? { inspector: true } : {}),
      ...(options.basePath !== undefined ? { basePath: options.basePath } : {}),
      ...(options.graceMs !== undefined ? { shutdownGraceMs: options.graceMs } : {}),
    });
    await host.start();
    const app = express();
    app.disable("x-powered-by");
    app.use(createFlowRouter(host));
    if (options.dev?.publicDir !== undefined) app.use(express.static(options.dev.publicDir));
    server = createServer(app);
    await listen(server, options.port, options.host);
  } catch (error) {
    await host?.close().catch(() => {});
    await stores.close().catch(() => {});
    throw error;
  }
  const { port } = server.address() as AddressInfo;
  const running = host;
  const listening = server;
  return {
    url: `http://${urlHost(options.host)}:${port}${running.basePath}`,
    host: running,
    async close() {
      // Still listening while the host drains: a load balancer's probe sees /readyz turn 503, and the requests
      // running here keep their streams and status reads.
      await running.close();
      const closed = new Promise<void>((resolve) => listening.close(() => resolve()));
      listening.closeAllConnections();
      await closed;
      await stores.close();
    },
  };
}
