export { MCP_SOURCE, type StdioIdentity } from "./mcp-caller.js";
export { MCP_ERROR_CODES } from "./mcp-errors.js";
export type { McpHttpOptions } from "./mcp-http-sessions.js";
export { type McpInboundOptions, mcpInbound } from "./mcp-inbound.js";
export type { McpServerOptions } from "./mcp-options.js";
export { RESOURCE_URI_PREFIX } from "./resource-uri.js";
export { type McpStdioOptions, serveMcpStdio } from "./serve-mcp-stdio.js";
export { DEFAULT_TOOL_NAME_SEPARATOR } from "./tool-catalog.js";
