import type { IncomingHttpHeaders } from "node:http";
import {
  createHttpHandler,
  DEFAULT_BODY_LIMIT,
  describeError,
  type FlowHost,
  type HttpRequest,
  type SourcedInboundRoute,
} from "@flowrt/engine";
import { type NextFunction, type Request, type Response, Router } from "express";
import {
  inboundMethod,
  invalidInboundPath,
  notAResponse,
  requestUrl,
  sendWebResponse,
  toWebRequest,
} from "./inbound.js";
import { problem } from "./problem.js";
import { BodyReadError, bodyAtHand, discardBody, readRawBody } from "./raw-body.js";
import { sendResponse } from "./send-response.js";

export interface FlowRouterOptions {
  /** Largest accepted request body in bytes; larger ones are answered 413 without being buffered. @default 1048576 (1 MiB) */
  bodyLimit?: number;
  /** How often an idle event stream sends a `: ping` comment, in milliseconds. @default 15000 */
  heartbeatMs?: number;
}

const ROUTER_OPTIONS: ReadonlySet<string> = new Set<keyof FlowRouterOptions>(["bodyLimit", "heartbeatMs"]);

function queryOf(search: string): HttpRequest["query"] {
  const query: Record<string, string | string[]> = {};
  if (search === "") return query;
  for (const [name, value] of new URLSearchParams(search)) {
    const seen = query[name];
    query[name] = seen === undefined ? value : Array.isArray(seen) ? [...seen, value] : [seen, value];
  }
  return query;
}

/**
 * The engine's view of an Express request. Node's header object is handed on as it is (names are
 * lower-case already); the client-gone signal is made only when an event stream asks for it.
 */
class ExpressHttpRequest implements HttpRequest {
  readonly method: string;
  readonly path: string;
  readonly url: string;
  readonly query: HttpRequest["query"];
  readonly headers: IncomingHttpHeaders;
  readonly rawBody: Buffer;
  readonly #res: Response;

  constructor(req: Request, res: Response, relative: string, rawBody: Buffer) {
    const q = relative.indexOf("?");
    this.method = req.method;
    this.path = q < 0 ? relative : relative.slice(0, q);
    this.url = req.originalUrl;
    this.query = queryOf(q < 0 ? "" : relative.slice(q + 1));
    this.headers = req.headers;
    this.rawBody = rawBody;
    this.#res = res;
  }

  get signal(): AbortSignal {
    return clientGone(this.#res);
  }
}

/**
 * An Express router serving a host's HTTP API under `host.basePath` (default `/api/flows`). It reads the
 * raw body itself for every content type (no `express.json()` needed), hands the request to the engine's
 * transport-neutral handler and writes back what the engine answers, event streams included.
 *
 * Beside the API it mounts the routes of the host's custom inbound adapters (`host.inboundRoutes()`, bound
 * once per host by the host, which also checks their shape): each on its method and its `path`, matched with Express route syntax (`/hooks/:team`) against
 * the full request path where the router is mounted, not relative to `basePath`, and ahead of the API. A
 * route's handler gets a WHATWG `Request` and its `Response` is written back, streamed. A route with a
 * method Express cannot serve, or a path that is not a valid route path, throws here.
 *
 * @example
 * await host.start();
 * app.use(createFlowRouter(host));
 */
export function createFlowRouter(host: FlowHost, options: FlowRouterOptions = {}): Router {
  for (const key of Object.keys(options)) {
    if (!ROUTER_OPTIONS.has(key)) {
      throw new TypeError(
        `createFlowRouter: unknown option "${key}" (it takes bodyLimit and heartbeatMs)${
          key === "basePath" ? '; the base path is a host option: createFlowHost({ basePath: "/v2" })' : ""
        }.`,
      );
    }
  }
  const bodyLimit = options.bodyLimit ?? DEFAULT_BODY_LIMIT;
  const handle = createHttpHandler(host, {
    bodyLimit,
    ...(options.heartbeatMs !== undefined ? { heartbeatMs: options.heartbeatMs } : {}),
  });

  /**
   * Answers a request that failed: nothing once the client is gone, a logged and cut connection once the
   * response has started, the body's 400 or 413, else a generic 500 (the error logged as `message`, with `fields`).
   */
  const fail = async (
    req: Request,
    res: Response,
    error: unknown,
    message: string,
    fields: Record<string, unknown>,
  ) => {
    if (error instanceof BodyReadError && error.status === 499) return;
    if (res.headersSent) {
      // Too late for a problem: the failure (not a client that left, which ends a response quietly) is logged.
      host.logger.error(message, { ...fields, error: describeError(error) });
      res.destroy();
      return;
    }
    if (error instanceof BodyReadError && error.code !== "client-closed") {
      await discardBody(req);
      const extra = error.status === 413 ? { limit: bodyLimit } : {};
      problem(res, error.code, error.message, extra);
      return;
    }
    host.logger.error(message, { ...fields, error: describeError(error) });
    problem(res, "internal-error", "An unexpected error occurred.");
  };

  const serve = async (req: Request, res: Response, relative: string) => {
    try {
      const rawBody = bodyAtHand(req) ?? (await readRawBody(req, bodyLimit));
      const response = await handle(new ExpressHttpRequest(req, res, relative, rawBody));
      await sendResponse(res, response, req.method === "HEAD");
    } catch (error) {
      await fail(req, res, error, "flow router failed", { method: req.method, path: req.originalUrl });
    }
  };

  /**
   * Serves one custom inbound route: the Express request as a WHATWG `Request` (the raw body read as for
   * the API, under the same limit), the handler's `Response` written back. Whatever the handler throws or
   * returns instead of a `Response` is the usual 500; the log names the route, never the body.
   */
  const serveInbound = async (route: SourcedInboundRoute, req: Request, res: Response) => {
    const fields = { source: route.source, method: req.method, path: route.path };
    const signal = clientGone(res);
    try {
      const url = requestUrl(req);
      if (url === null) {
        await discardBody(req);
        problem(res, "invalid-request", "The request's Host header does not name a valid host.");
        return;
      }
      // A WHATWG Request cannot carry a body on GET or HEAD: one sent anyway is left unread.
      const body =
        req.method === "GET" || req.method === "HEAD"
          ? undefined
          : (bodyAtHand(req) ?? (await readRawBody(req, bodyLimit)));
      const response: unknown = await route.handler(toWebRequest(req, url, body, signal));
      if (!(response instanceof globalThis.Response)) throw notAResponse(response);
      await sendWebResponse(res, response, req.method === "HEAD");
    } catch (error) {
      await fail(req, res, error, "inbound route failed", fields);
    }
  };

  // One path-less layer that checks the mount itself, as `router.use(basePath, …)` would (case-insensitive,
  // at a segment boundary), without a second routing pass and without rewriting `req.url`.
  const basePath = host.basePath.toLowerCase();
  const flowLayer = (req: Request, res: Response, next: NextFunction) => {
    const relative = belowMount(req.url, basePath);
    if (relative === null) next();
    else void serve(req, res, relative);
  };
  const router = Router();
  // Inbound routes first: one that lies below basePath is served rather than answered 404 by the API.
  for (const route of host.inboundRoutes()) {
    const method = inboundMethod(route);
    let expressRoute: ReturnType<typeof router.route>;
    try {
      expressRoute = router.route(route.path);
    } catch (error) {
      throw invalidInboundPath(route, error);
    }
    // `route.post(…)`, `route.propfind(…)`: Express's route has one registrar per method it knows.
    const on = expressRoute as unknown as Record<
      string,
      (handler: (req: Request, res: Response) => void) => void
    >;
    on[method]!((req, res) => {
      serveInbound(route, req, res).catch(() => res.destroy());
    });
  }
  router.use(flowLayer);
  // While that layer is all the router holds, a request goes straight to it: the router's own pass over
  // its stack would only call it. Anything an application adds to the router brings the full pass back.
  // (`handle` is the method a router function calls; should it ever not be, the full pass simply stays.)
  const internals = router as unknown as { handle(req: Request, res: Response, out: NextFunction): void };
  const routerPass = internals.handle.bind(router);
  internals.handle = (req, res, out) => {
    if (router.stack.length === 1) flowLayer(req, res, out);
    else routerPass(req, res, out);
  };
  return router;
}

/**
 * `url` (path and query, as the router sees it) relative to `basePath` (lower-case, no trailing `/`),
 * always starting with `/`; `null` when the path is not at or below the mount.
 */
function belowMount(url: string, basePath: string): string | null {
  if (basePath === "") return url.startsWith("/") ? url : `/${url}`;
  if (url.length < basePath.length || url.slice(0, basePath.length).toLowerCase() !== basePath) return null;
  const rest = url.slice(basePath.length);
  if (rest === "" || rest[0] === "?") return `/${rest}`;
  return rest[0] === "/" ? rest : null;
}

/**
 * A signal that aborts when the client goes away (`close` before the response finished). Made once per
 * response, on first use.
 */
function clientGone(res: Response): AbortSignal {
  const held = (res as Response & { [CLIENT_GONE]?: AbortSignal })[CLIENT_GONE];
  if (held) return held;
  const controller = new AbortController();
  (res as Response & { [CLIENT_GONE]?: AbortSignal })[CLIENT_GONE] = controller.signal;
  if (res.destroyed && !res.writableFinished) controller.abort();
  else
    res.once("close", () => {
      if (!res.writableFinished) controller.abort();
    });
  return controller.signal;
}

const CLIENT_GONE = Symbol("flowrt.clientGone");
