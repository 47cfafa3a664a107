import type { Readable, Writable } from "node:stream";
import type { FlowHost } from "@flowrt/engine";
import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { createMcpServer } from "./create-mcp-server.js";
import { type StdioIdentity, stdioMcpCaller } from "./mcp-caller.js";
import type { McpServerOptions } from "./mcp-options.js";
import { ToolCatalog } from "./tool-catalog.js";

export interface McpStdioOptions extends McpServerOptions, StdioIdentity {
  /** @default process.stdin */
  stdin?: Readable;
  /** @default process.stdout */
  stdout?: Writable;
}

/**
 * Serves the host's MCP server over stdio, for a local client that starts this process (Claude Desktop, an IDE,
 * the MCP Inspector). There is no HTTP request to read a credential from: `headers` are handed to the resolver
 * as the request's (`{ authorization: \`Bearer ${process.env.FLOWRT_TOKEN}\` }`), or `principal` is asserted
 * outright (trusted, as a custom inbound route's). Without either, a flow is usable only as a call without
 * credentials is (`defaultUserId`, `requireUser: false`). stdout carries the protocol: log to stderr.
 * Resolves once connected; the returned server's `close()` ends it.
 *
 * @example
 * await host.start();
 * await serveMcpStdio(host, { headers: { authorization: `Bearer ${process.env.FLOWRT_TOKEN}` } });
 */
export async function serveMcpStdio(host: FlowHost, options: McpStdioOptions = {}): Promise<Server> {
  const caller = stdioMcpCaller(options);
  const server = createMcpServer(
    host,
    new ToolCatalog(host, options.toolNameSeparator),
    () => caller,
    options,
  );
  await server.connect(new StdioServerTransport(options.stdin, options.stdout));
  return server;
}
