import { METHODS } from "node:http";
import { DefinitionError } from "@flowrt/core";
import { inboundRouteLabel, type SourcedInboundRoute } from "@flowrt/engine";

/**
 * Methods a Node server can receive: those its parser knows. (The host has already refused what no
 * handler could receive: CONNECT, TRACE, TRACK.)
 */
const NODE_METHODS = new Set(METHODS);

/**
 * Refuses, with a `DefinitionError` naming the route and its adapter, a custom inbound route whose method
 * Node's parser does not know: no request could ever reach it through this adapter.
 */
export function checkInboundMethods(routes: readonly SourcedInboundRoute[]): void {
  for (const route of routes) {
    if (!NODE_METHODS.has(route.method.toUpperCase())) {
      throw new DefinitionError(
        `${inboundRouteLabel(route.source, route)}: unsupported method ${JSON.stringify(route.method)}. Express ` +
          "routes the methods Node parses (GET, POST, PUT, PATCH, DELETE, OPTIONS, PROPFIND, …).",
      );
    }
  }
}
