import type { AddressInfo } from "node:net";
import type { FlowHost } from "@flowrt/engine";
import { createFlowRouter } from "@flowrt/express";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import express from "express";

/** A host served by the Express adapter on a loopback socket; `url` is its MCP endpoint. */
export async function serveOverHttp(host: FlowHost) {
  await host.start();
  const app = express();
  app.use(createFlowRouter(host));
  const server = app.listen(0, "127.0.0.1");
  await new Promise<void>((resolve) => server.once("listening", () => resolve()));
  const { port } = server.address() as AddressInfo;
  const url = `http://127.0.0.1:${port}${host.basePath}/mcp`;
  const clients: Client[] = [];
  return {
    url,
    host,
    /** An SDK client connected over Streamable HTTP (to `at`, else `url`), sending `headers` with every request. */
    async connect(headers: Record<string, string> = {}, at: string = url): Promise<Client> {
      const client = new Client({ name: "flowrt-test", version: "1.0.0" });
      await client.connect(new StreamableHTTPClientTransport(new URL(at), { requestInit: { headers } }));
      clients.push(client);
      return client;
    },
    async close() {
      await Promise.all(clients.map((client) => client.close().catch(() => {})));
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await host.close({ graceMs: 1_000 });
    },
  };
}
