import type { FlowHost } from "@flowrt/engine";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import {
  CallToolRequestSchema,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListToolsRequestSchema,
  McpError,
  ReadResourceRequestSchema,
} from "@modelcontextprotocol/sdk/types.js";
import { callActionTool } from "./call-tool.js";
import { listToolsFor } from "./list-tools.js";
import type { CallerOf, CancellerOf } from "./mcp-caller.js";
import { mcpErrorOf, publicProblem } from "./mcp-errors.js";
import type { McpServerOptions } from "./mcp-options.js";
import { listSessionResources, readSessionResource, resourceTemplates } from "./session-resources.js";
import type { ToolCatalog } from "./tool-catalog.js";
import { MCP_PACKAGE_VERSION } from "./version.js";

/**
 * One MCP server (one client's connection) over a host. The SDK's low-level `Server`: tools and their schemas
 * come from the host's flows, and what `tools/list` shows depends on who asks, per request, which `McpServer`'s
 * fixed registry cannot say. Every handler resolves the caller from the request carrying the message
 * (`callerOf`), so each call is authenticated on its own, as on the HTTP API.
 */
export function createMcpServer(
  host: FlowHost,
  catalog: ToolCatalog,
  callerOf: CallerOf,
  options: McpServerOptions = {},
  cancellerOf?: CancellerOf,
): Server {
  const server = new Server(
    { name: options.name ?? "flowrt", version: options.version ?? MCP_PACKAGE_VERSION },
    {
      capabilities: { tools: {}, resources: {} },
      ...(options.instructions !== undefined ? { instructions: options.instructions } : {}),
    },
  );
  // The SDK answers a handler's throw with the error's own message: anything that is not already an MCP error is
  // the server's, answered as the HTTP API answers it (the catalogue's text and an errorId, the message logged).
  const guarded =
    <A extends unknown[], R>(method: string, run: (...args: A) => Promise<R>) =>
    async (...args: A): Promise<R> => {
      try {
        return await run(...args);
      } catch (error) {
        if (error instanceof McpError) throw error;
        throw mcpErrorOf(publicProblem(error, host.logger, { method }));
      }
    };
  server.setRequestHandler(
    ListToolsRequestSchema,
    guarded("tools/list", async (_request, extra) => ({
      tools: await listToolsFor(host, catalog, callerOf(extra.requestInfo)),
    })),
  );
  server.setRequestHandler(
    CallToolRequestSchema,
    guarded("tools/call", (request, extra) =>
      callActionTool(host, catalog, request.params, extra, callerOf(extra.requestInfo), cancellerOf),
    ),
  );
  server.setRequestHandler(
    ListResourcesRequestSchema,
    guarded("resources/list", (request, extra) =>
      listSessionResources(host, callerOf(extra.requestInfo), request.params?.cursor),
    ),
  );
  server.setRequestHandler(ListResourceTemplatesRequestSchema, async () => resourceTemplates());
  server.setRequestHandler(
    ReadResourceRequestSchema,
    guarded("resources/read", (request, extra) =>
      readSessionResource(host, callerOf(extra.requestInfo), request.params.uri),
    ),
  );
  return server;
}
