import type { Principal } from "@flowrt/core";
import { type Caller, parseCookies } from "@flowrt/engine";

/** The `source` every MCP call resolves its principal under (specification: PrincipalResolutionContext). */
export const MCP_SOURCE = "mcp";

/** What an MCP server knows of the HTTP request that carried a message (the SDK's `requestInfo`). */
export interface McpRequestInfo {
  headers: Record<string, string | string[] | undefined>;
  url?: URL;
}

/** How the server of one transport turns the request carrying a message into the engine's caller. */
export type CallerOf = (requestInfo: McpRequestInfo | undefined) => Caller;

/**
 * Who sent the cancellation of a call, by the JSON-RPC id it names (`undefined`: no such cancellation was seen,
 * and the call's own caller stands, as over stdio, where one client is everyone).
 */
export type CancellerOf = (requestId: string | number) => Caller | undefined;

/**
 * The caller of a message that came over HTTP: `source: "mcp"`, the request's headers (so an `Authorization:
 * Bearer` header or a cookie reaches the resolver exactly as on the HTTP API), its path and query as `url`. A
 * message without request info (none came with it) is a caller with no request: a resolver finds no credential.
 */
export function httpMcpCaller(requestInfo: McpRequestInfo | undefined): Caller {
  if (!requestInfo) return { source: MCP_SOURCE };
  const cookie = requestInfo.headers.cookie;
  return {
    source: MCP_SOURCE,
    request: {
      method: "POST",
      url: requestInfo.url ? `${requestInfo.url.pathname}${requestInfo.url.search}` : "",
      headers: requestInfo.headers,
      cookies: parseCookies(Array.isArray(cookie) ? cookie.join("; ") : cookie),
    },
  };
}

/** Who a local (stdio) client is: headers given to the resolver as a request's, or a principal asserted outright. */
export interface StdioIdentity {
  /** Given to the resolver as the request's headers (lower-case names): `{ authorization: "Bearer …" }`. */
  headers?: Record<string, string>;
  /** Trusted as is, over any resolver, as a custom inbound route's asserted principal. */
  principal?: Principal;
}

/** The one caller of a stdio server: no HTTP request, so what the application configured stands for it. */
export function stdioMcpCaller(identity: StdioIdentity): Caller {
  const caller: Caller = { source: MCP_SOURCE };
  if (identity.principal) caller.principal = identity.principal;
  if (identity.headers) {
    const headers = Object.fromEntries(
      Object.entries(identity.headers).map(([name, value]) => [name.toLowerCase(), value]),
    );
    caller.request = { method: "POST", url: "", headers, cookies: parseCookies(headers.cookie) };
  }
  return caller;
}
