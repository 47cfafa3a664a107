import { DefinitionError } from "@flowrt/core";
import type { FlowHost, InboundAdapter } from "@flowrt/engine";
import { MCP_SOURCE } from "./mcp-caller.js";
import { type McpHttpOptions, McpHttpSessions } from "./mcp-http-sessions.js";
import { ToolCatalog } from "./tool-catalog.js";

export interface McpInboundOptions extends McpHttpOptions {
  /** Where the endpoint is served, relative to the host's `basePath`. @default "/mcp" */
  path?: string;
}

function isFlowHost(value: unknown): value is FlowHost {
  const host = value as Partial<FlowHost> | null;
  return (
    typeof host?.invoke === "function" && typeof host.basePath === "string" && host.registry !== undefined
  );
}

/**
 * The MCP Streamable HTTP transport as a custom inbound adapter: every HTTP adapter of the host
 * (`@flowrt/express`'s `createFlowRouter`, …) serves it at `{basePath}/mcp` (POST, GET, DELETE). Each flow action
 * is a tool, each session's client-visible resources are MCP resources; every call resolves its principal with
 * `source: "mcp"` from its own request's headers, as the HTTP API does.
 *
 * @example
 * const host = createFlowHost({ flows: [notebook], stores, inbound: [mcpInbound()] });
 * app.use(createFlowRouter(host)); // MCP at /api/flows/mcp
 */
export function mcpInbound(options: McpInboundOptions = {}): InboundAdapter {
  const relative = options.path ?? "/mcp";
  return {
    source: MCP_SOURCE,
    createBindings(host) {
      if (!isFlowHost(host))
        throw new DefinitionError("mcpInbound() must be given to createFlowHost({ inbound }).");
      if (!relative.startsWith("/")) {
        throw new DefinitionError(
          `mcpInbound({ path }) must start with "/", got ${JSON.stringify(relative)}.`,
        );
      }
      const sessions = new McpHttpSessions(host, new ToolCatalog(host, options.toolNameSeparator), options);
      const path = `${host.basePath}${relative}`;
      const handler = (request: Request) => sessions.handle(request);
      return { routes: ["POST", "GET", "DELETE"].map((method) => ({ method, path, handler })) };
    },
  };
}
