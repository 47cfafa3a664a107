import { DefinitionError, FlowError, isFlowError } from "@flowrt/core";
import { inboundRouteLabel, type SourcedInboundRoute } from "../../flows/inbound-routes.js";
import type { FlowHost } from "../../host.js";
import type { InboundRequestInfo } from "../../host-options.js";
import type { HostLogger } from "../../logger.js";
import { newErrorId } from "../../requests/new-request.js";
import { problemResponse } from "../handler.js";
import { compileInboundPath } from "../inbound-path.js";
import { type BodySource, discardBody, readBody } from "../read-body.js";
import type { HttpResponse } from "../types.js";
import { absoluteUrl, fromWebResponse, notAResponse, toWebRequest } from "../web-exchange.js";

/** A request for a custom inbound route, as a transport describes it. */
export interface InboundRequest extends BodySource {
  method: string;
  /** The full original path and query (`/tenant/hooks/x?a=1`): the handler's URL. */
  url: string;
  /** `protocol://host` as the transport trusts them (behind a proxy: the forwarded ones). */
  origin: string;
  /** Every header as received, names and values in turn (Node's `rawHeaders`), so repeated ones stay apart. */
  rawHeaders?: readonly string[];
  /** Aborts when the client goes away. */
  signal?: AbortSignal;
  /** The client's address as the transport trusts it (Express: `req.ip`), handed to inbound routes. */
  remoteAddress?: string | undefined;
}

interface CompiledInboundRoute {
  route: SourcedInboundRoute;
  method: string;
  pattern: RegExp;
}

/**
 * The custom inbound routes of a host (`host.inboundRoutes()`), matched on the method and on the path where
 * the transport is mounted, in the order the adapters declared them. A route's path is in Express's route
 * syntax; one that is not makes a `DefinitionError` naming the route and its adapter.
 */
export class InboundRoutes {
  private readonly routes: CompiledInboundRoute[];

  /**
   * `methods`, when given, are those the transport can receive (a Node server: what its parser knows); a route
   * on another method is a `DefinitionError`, as no request could ever reach it.
   */
  constructor(routes: readonly SourcedInboundRoute[], methods?: Iterable<string>) {
    const receivable = methods ? new Set([...methods].map((method) => method.toUpperCase())) : undefined;
    this.routes = routes.map((route) => {
      if (receivable && !receivable.has(route.method.toUpperCase())) {
        throw new DefinitionError(
          `${inboundRouteLabel(route.source, route)}: unsupported method ${JSON.stringify(route.method)}. ` +
            `This transport receives ${[...receivable].join(", ")}.`,
        );
      }
      try {
        return { route, method: route.method.toUpperCase(), pattern: compileInboundPath(route.path) };
      } catch (error) {
        const reason = error instanceof Error ? error.message : String(error);
        const refusal = new DefinitionError(
          `${inboundRouteLabel(route.source, route)}: the path is not a valid Express route path (${reason}).`,
        );
        refusal.cause = error;
        throw refusal;
      }
    });
  }

  get size(): number {
    return this.routes.length;
  }

  /** The route serving `method` at `pathname` (a GET route serves HEAD too), if any. */
  match(method: string, pathname: string): SourcedInboundRoute | undefined {
    if (this.routes.length === 0) return undefined;
    for (const { route, method: served, pattern } of this.routes) {
      if ((served === method || (method === "HEAD" && served === "GET")) && pattern.test(pathname))
        return route;
    }
    return undefined;
  }

  /** The methods the routes serve at `pathname` (HEAD beside GET), sorted; empty when none is there. */
  allowedAt(pathname: string): string[] {
    const allowed = new Set<string>();
    for (const { method, pattern } of this.routes) {
      if (!pattern.test(pathname)) continue;
      allowed.add(method);
      if (method === "GET") allowed.add("HEAD");
    }
    return [...allowed].sort();
  }
}

/**
 * The answer Express's router gave an `OPTIONS` request at a path only inbound routes serve (none of them on
 * `OPTIONS`): 200, the methods as `Allow` and as a plain-text body. Kept so that such a request is answered
 * as it was when the routes were Express routes.
 */
export function inboundOptions(allowed: readonly string[]): HttpResponse {
  const allow = allowed.join(", ");
  return {
    status: 200,
    headers: {
      allow,
      "content-length": String(Buffer.byteLength(allow)),
      "content-type": "text/plain",
      "x-content-type-options": "nosniff",
    },
    bodyText: allow,
  };
}

/**
 * Serves one custom inbound route: the request as a WHATWG `Request` (the body read under `bodyLimit`, not
 * for GET and HEAD, which cannot carry one), the handler's `Response` as the answer, its body streamed.
 * Whatever the handler throws or returns instead of a `Response` is the usual 500; the log names the route,
 * never the body.
 */
export async function serveInbound(
  host: FlowHost,
  route: SourcedInboundRoute,
  request: InboundRequest,
  bodyLimit: number,
  log: HostLogger = host.logger,
): Promise<HttpResponse> {
  const fields = { source: route.source, method: request.method, route: route.path };
  const failed = (error: unknown) => log.error({ ...fields, err: error }, "inbound route failed");
  const url = absoluteUrl(request.origin, request.url);
  if (url === null) {
    await discardBody(request);
    return problemResponse(
      new FlowError("invalid-request", "The request's Host header does not name a valid host."),
    );
  }
  const head = request.method === "HEAD";
  let body: Uint8Array | undefined;
  try {
    if (request.method !== "GET" && !head) body = await readBody(request, bodyLimit);
  } catch (error) {
    if (isFlowError(error)) return problemResponse(error);
    throw error;
  }
  try {
    const signal = request.signal;
    const info: InboundRequestInfo = {};
    if (request.remoteAddress !== undefined) info.remoteAddress = request.remoteAddress;
    const response: unknown = await route.handler(
      toWebRequest(request.method, url, request.headers, request.rawHeaders, body, signal),
      info,
    );
    if (!(response instanceof globalThis.Response)) throw notAResponse(response);
    return fromWebResponse(response, head, signal, failed);
  } catch (error) {
    // Always a 500, whatever the handler threw: logged whole under an `errorId` the problem carries.
    const errorId = newErrorId();
    log.error({ ...fields, errorId, err: error }, "inbound route failed");
    const shown = host.exposeErrors
      ? new Error(error instanceof Error ? error.message : String(error))
      : new FlowError("internal-error", "An unexpected error occurred.");
    return problemResponse(shown, { errorId, expose: host.exposeErrors });
  }
}
