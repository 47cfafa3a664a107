import { FlowError } from "@flowrt/core";
import type { FlowHost } from "../host.js";
import type { HostLogger } from "../logger.js";
import { newErrorId } from "../requests/new-request.js";
import { traceHttpRequests } from "../telemetry/http-span.js";
import { answered, mountedPattern } from "./access-log.js";
import type { HttpContext } from "./context.js";
import { LazyChildLogger } from "./lazy-child-logger.js";
import { problemFor, statusForError } from "./problem.js";
import { readBody } from "./read-body.js";
import { DEFAULT_BODY_LIMIT, refuseCrossSiteNonJson } from "./request-body.js";
import { requestIdOf } from "./request-id.js";
import { type Route, RouteTable } from "./router.js";
import { actionRoutes } from "./routes/actions.js";
import { flowRoutes } from "./routes/flows.js";
import { healthRoutes } from "./routes/health.js";
import { requestRoutes } from "./routes/requests.js";
import { resourceRoutes } from "./routes/resources.js";
import { scheduleRoutes } from "./routes/schedules.js";
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
  ...scheduleRoutes,
  ...resourceRoutes,
  ...webhookRoutes,
];

/** The `application/problem+json` answer for any thrown value (a generic 500 for what carries no code). */
export function problemResponse(
  error: unknown,
  options: Parameters<typeof problemFor>[1] = {},
): HttpResponse {
  const problem = problemFor(error, options);
  return { status: problem.status, headers: { "content-type": "application/problem+json" }, body: problem };
}

/**
 * The answer to a request that failed: a client's mistake (a 4xx code) as its problem; a server-side failure
 * (5xx) logged at `error` with the whole error and its stack under a new `errorId`, which the problem carries
 * (its detail the catalogue's text, or the message with the host's `exposeErrors`).
 */
export function failureResponse(
  host: FlowHost,
  log: HostLogger,
  error: unknown,
  message: string,
  fields: Record<string, unknown>,
): HttpResponse {
  if (statusForError(error) < 500) return problemResponse(error);
  const errorId = newErrorId();
  log.error({ ...fields, errorId, err: error }, message);
  return problemResponse(error, { errorId, expose: host.exposeErrors });
}

/** Gives a request coming in its id (`x-request-id`, else a new one) and its logger bound to it (`reqId`). */
export function identify(host: FlowHost, request: HttpRequest): string {
  const id = request.id ?? requestIdOf(request.headers);
  request.id = id;
  request.log ??= new LazyChildLogger(host.logger, { reqId: id });
  return id;
}

/**
 * The transport-neutral HTTP API of a host: a route table over plain requests and responses. Every
 * error becomes `application/problem+json` with a catalogue `code`; nothing a handler throws escapes. Every
 * answer carries the request's `x-request-id`, and the host's access line is written for it.
 */
export function createHttpHandler(host: FlowHost, options: HttpHandlerOptions = {}): HttpHandler {
  const dispatch = createDispatcher(host, options);
  return async (request) => {
    const startedAt = performance.now();
    const id = identify(host, request);
    const response = await dispatch(request);
    const route = mountedPattern(host.basePath, request.route);
    return answered(host, { method: request.method, id, route, startedAt }, response);
  };
}

/**
 * {@link createHttpHandler} without the request id and access line: what a transport's entry
 * (`createMountedHandler`) calls, having done both itself. `request.id` and `request.log` are set.
 */
export function createDispatcher(host: FlowHost, options: HttpHandlerOptions = {}): HttpHandler {
  const context: HttpContext = {
    host,
    bodyLimit: options.bodyLimit ?? DEFAULT_BODY_LIMIT,
    heartbeatMs: options.heartbeatMs ?? 15_000,
    routes: ROUTES,
  };
  const table = new RouteTable<HttpContext>(ROUTES);
  return traceHttpRequests(host.basePath, async (request: HttpRequest): Promise<HttpResponse> => {
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
      request.route = found.route.path;
      return await found.route.handler(request, found.params, context);
    } catch (error) {
      const fields = { method: request.method, route: request.route, path: request.path };
      return failureResponse(host, request.log ?? host.logger, error, "request handler failed", fields);
    }
  });
}
