import { FlowError, type PrincipalResolutionRequest } from "@flowrt/core";
import type { Caller } from "@flowrt/engine";
import { type FlowHost, type InboundRequestInfo, parseCookies } from "@flowrt/engine";
import { isLoopbackAddress } from "./is-loopback-address.js";

/** The caller of an inspector route, as the HTTP API describes one (`source: "http"`, its headers and cookies). */
export function inspectorCaller(request: Request): Caller {
  const headers: Record<string, string> = {};
  request.headers.forEach((value, name) => {
    headers[name] = value;
  });
  const resolution: PrincipalResolutionRequest = {
    method: request.method,
    url: new URL(request.url).pathname + new URL(request.url).search,
    headers,
    cookies: parseCookies(headers.cookie),
  };
  return { source: "http", request: resolution };
}

/**
 * Who may use the inspector. With a principal resolver configured (the host's, or a flow's own), the caller
 * must be one the engine's resolution accepts for at least one flow (`host.access.principalFor`, the debug
 * route's own resolution; its 401/403 stands otherwise), and the JSON routes then show only what the HTTP API
 * shows that principal (its listings, its sessions' owner checks). With no resolver anywhere, every flow is open,
 * so only a loopback client is served (the transport's address: Express's `req.ip`); others get 403.
 */
export async function guardInspector(
  host: FlowHost,
  request: Request,
  info: InboundRequestInfo,
): Promise<Caller> {
  const caller = inspectorCaller(request);
  const governed = host.registry.flows.filter((flow) => host.access.hasResolver(flow));
  if (governed.length === 0) {
    if (!isLoopbackAddress(info.remoteAddress)) {
      throw new FlowError(
        "forbidden",
        "The inspector answers only loopback clients when no principal resolver is configured.",
      );
    }
    return caller;
  }
  let firstRefusal: unknown;
  for (const flow of governed) {
    try {
      await host.access.principalFor(flow, caller);
      return caller;
    } catch (error) {
      firstRefusal ??= error;
    }
  }
  throw firstRefusal;
}
