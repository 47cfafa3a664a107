import { DefinitionError } from "@flowrt/core";
import type { InboundAdapter, InboundRoute } from "../host-options.js";

/** A custom inbound route tagged with its adapter's `source`, as `host.inboundRoutes()` gives it. */
export type SourcedInboundRoute = InboundRoute & { source: string };

/** An HTTP method token (RFC 9110 §9.1: a `token`). */
const METHOD_TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
/** Methods a WHATWG `Request` cannot carry (Fetch: forbidden methods), so no handler could receive them. */
const FORBIDDEN_METHODS = new Set(["CONNECT", "TRACE", "TRACK"]);

/** How refusals name a route: `Inbound route POST /hooks/x of adapter "slack"` (for transports too). */
export function inboundRouteLabel(source: string, route: Partial<InboundRoute>): string {
  return `Inbound route ${String(route.method)} ${String(route.path)} of adapter "${source}"`;
}

function checkRoute(source: string, route: unknown): SourcedInboundRoute {
  if (typeof route !== "object" || route === null) {
    throw new DefinitionError(`Inbound adapter "${source}" returned a route that is not an object.`);
  }
  const { method, path, handler } = route as Partial<InboundRoute>;
  const where = inboundRouteLabel(source, route as Partial<InboundRoute>);
  if (typeof handler !== "function") throw new DefinitionError(`${where}: handler must be a function.`);
  if (typeof path !== "string" || !path.startsWith("/")) {
    throw new DefinitionError(
      `${where}: path must be the full request path, starting with "/" (prefix included, not relative to basePath).`,
    );
  }
  if (
    typeof method !== "string" ||
    !METHOD_TOKEN.test(method) ||
    FORBIDDEN_METHODS.has(method.toUpperCase())
  ) {
    throw new DefinitionError(
      `${where}: unsupported method ${JSON.stringify(method)}. Use an HTTP method (GET, POST, PUT, PATCH, DELETE, …); ` +
        "CONNECT, TRACE and TRACK never reach a handler.",
    );
  }
  return { method, path, handler, source };
}

/**
 * The routes of every custom inbound adapter, each checked and tagged with its adapter's source: the
 * adapter must be `{ source, createBindings(host) }` returning `{ routes }`, each route a handler with an
 * absolute path and an HTTP method, and no two routes may claim the same method and path. Anything else is
 * a `DefinitionError` naming the adapter and the route. What a particular framework can route (its method
 * names, its path syntax) is its adapter's to check.
 */
export function bindInboundRoutes<THost>(adapters: unknown, host: THost): SourcedInboundRoute[] {
  if (adapters === undefined) return [];
  if (!Array.isArray(adapters)) {
    throw new DefinitionError("createFlowHost({ inbound }) must be an array of inbound adapters.");
  }
  const routes: SourcedInboundRoute[] = [];
  const claimed = new Map<string, string>();
  for (const adapter of adapters as Array<Partial<InboundAdapter<THost>> | null>) {
    const source = adapter?.source;
    if (typeof source !== "string" || source === "" || typeof adapter?.createBindings !== "function") {
      throw new DefinitionError(
        "An inbound adapter must be an object with a non-empty `source` and `createBindings(host)`.",
        { source: typeof source === "string" ? source : undefined },
      );
    }
    const bindings = adapter.createBindings(host) as { routes?: unknown } | null | undefined;
    if (!Array.isArray(bindings?.routes)) {
      throw new DefinitionError(
        `Inbound adapter "${source}": createBindings(host) must return { routes: [...] }.`,
      );
    }
    for (const candidate of bindings.routes) {
      const route = checkRoute(source, candidate);
      const key = `${route.method.toUpperCase()} ${route.path}`;
      const other = claimed.get(key);
      if (other !== undefined) {
        throw new DefinitionError(
          `${inboundRouteLabel(source, route)}: adapter "${other}" already declares ${key}; only one route can serve it.`,
        );
      }
      claimed.set(key, source);
      routes.push(route);
    }
  }
  return routes;
}
