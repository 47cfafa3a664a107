import { FlowError } from "@flowrt/core";
import type { FlowHost } from "../host.js";
import { describeError } from "../logger.js";
import type { HttpContext } from "./context.js";
import { problemFor, statusForError } from "./problem.js";
import { readBody } from "./read-body.js";
import { DEFAULT_BODY_LIMIT, refuseCrossSiteNonJson } from "./request-body.js";
import { type Route, RouteTable } from "./router.js";
import { actionRoutes } from "./routes/actions.js";
import { flowRoutes } from "./routes/flows.js";
import { healthRoutes } from "./routes/health.js";
import { requestRoutes } from "./routes/requests.js";
import { resourceRoutes } from "./routes/resources.js";
import { sessionRoutes } from "./routes/sessions.js";
import { webhookRoutes } from "./routes/webhooks.js";
import type { HttpRequest, HttpResponse } from "./types.js";

export type { HttpContext } from "./context.js";

export { requestView } from "./routes/requests.js";
export { sessionView } from "./routes/sessions.js";

export interface HttpHandlerOptions {
  /** Largest accepted body in bytes; larger ones get 413. @default 1 MiB */
  bodyLimit?: number;
  /** How often an idle event stream sends a `: ping` comment. @default 15_000 */
  heartbeatMs?: number;
}

export type HttpHandler = (request: HttpRequest) => Promise<HttpResponse>;

/** Methods that only read: a page on another site may send them, and they change nothing. */
const SAFE_METHODS: ReadonlySet<string> = new Set(["GET", "HEAD", "OPTIONS"]);

/**
 * Every route of the API, by feature, in matching order: the first route of a method that matches a path
 * serves it, so the order between features is part of the API (`POST /requests/actions/abort` runs the
 * action `abort` of a flow named `requests`).
 */
const ROUTES: readonly Route<HttpContext>[] = [
  ...healthRoutes,
  ...flowRoutes,
  ...sessionRoutes,
  ...actionRoutes,
  ...requestRoutes,
  ...resourceRoutes,
  ...webhookRoutes,
];

/** The `application/problem+json` answer for any thrown value (a generic 500 for what carries no code). */
export function problemResponse(error: unknown): HttpResponse {
  const problem = problemFor(error);
  return { status: problem.status, headers: { "content-type": "application/problem+json" }, body: problem };
}

/**
 * The transport-neutral HTTP API of a host: a route table over plain requests and responses. Every
 * error becomes `application/problem+json` with a catalogue `code`; nothing a handler throws escapes.
 */
export function createHttpHandler(host: FlowHost, options: HttpHandlerOptions = {}): HttpHandler {
  const context: HttpContext = {
    host,
    bodyLimit: options.bodyLimit ?? DEFAULT_BODY_LIMIT,
    heartbeatMs: options.heartbeatMs ?? 15_000,
    routes: ROUTES,
  };
  const table = new RouteTable<HttpContext>(ROUTES);
  return async (request) => {
    try {
      // The one place the body limit is held, whether the transport read the bytes or hands the stream on.
      if (request.rawBody !== undefined || request.body !== undefined) {
        const body = readBody(request, context.bodyLimit);
        request.rawBody = body instanceof Uint8Array ? body : await body;
      }
      const found = table.match(request.method.toUpperCase(), request.path);
      // An application that mounted a host without `await host.start()` gets it started by the first request (a
      // health probe answers as the host is).
      if (!host.started && !(found !== null && "route" in found && found.route.probe))
        await host.ensureStarted();
      if (!found) throw new FlowError("not-found", `Nothing is served at ${request.method} ${request.path}.`);
      // Every route that writes, webhooks included: a provider sends neither fetch metadata nor `Origin`.
      if ("route" in found && !SAFE_METHODS.has(found.route.method)) refuseCrossSiteNonJson(request);
      if ("allowed" in found) {
        // HEAD is served wherever GET is, and OPTIONS anywhere a route is: answered here, with the list.
        const allowed = [...found.allowed];
        if (allowed.includes("GET")) allowed.push("HEAD");
        allowed.push("OPTIONS");
        const allow = allowed.join(", ");
        if (request.method.toUpperCase() === "OPTIONS") return { status: 204, headers: { allow } };
        const response = problemResponse(
          new FlowError("method-not-allowed", `${request.method} is not allowed here.`, {
            details: { allowed },
          }),
        );
        response.headers.allow = allow;
        return response;
      }
      return await found.route.handler(request, found.params, context);
    } catch (error) {
      if (statusForError(error) >= 500) {
        host.logger.error("request handler failed", {
          method: request.method,
          path: request.path,
          error: describeError(error),
        });
      }
      return problemResponse(error);
    }
  };
}
