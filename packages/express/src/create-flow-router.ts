import type { IncomingHttpHeaders } from "node:http";
import {
  createMountedHandler,
  describeError,
  type FlowHost,
  type MountedRequest,
  problemResponse,
} from "@flowrt/engine";
import { type NextFunction, type Request, type Response, Router } from "express";
import { checkInboundMethods } from "./inbound.js";
import { bodyOf } from "./raw-body.js";
import { sendResponse } from "./send-response.js";

export interface FlowRouterOptions {
  /** Largest accepted request body in bytes; larger ones are answered 413 without being buffered. @default 1048576 (1 MiB) */
  bodyLimit?: number;
  /** How often an idle event stream sends a `: ping` comment, in milliseconds. @default 15000 */
  heartbeatMs?: number;
}

const ROUTER_OPTIONS: ReadonlySet<string> = new Set<keyof FlowRouterOptions>(["bodyLimit", "heartbeatMs"]);

/** The engine's view of an Express request; the client-gone signal is made only when the engine asks for it. */
class ExpressRequest implements MountedRequest {
  readonly method: string;
  readonly target: string;
  readonly url: string;
  readonly headers: IncomingHttpHeaders;
  readonly rawBody?: Buffer;
  readonly body?: AsyncIterable<Uint8Array>;
  readonly #req: Request;
  readonly #res: Response;

  constructor(req: Request, res: Response) {
    this.method = req.method;
    this.target = req.url;
    this.url = req.originalUrl;
    this.headers = req.headers;
    Object.assign(this, bodyOf(req));
    this.#req = req;
    this.#res = res;
  }

  /** Protocol and host as Express reports them, so `trust proxy` applies. */
  get origin(): string {
    return `${this.#req.protocol}://${this.#req.host || "localhost"}`;
  }

  get rawHeaders(): readonly string[] {
    return this.#req.rawHeaders;
  }

  get signal(): AbortSignal {
    return clientGone(this.#res);
  }
}

/**
 * An Express router serving a host's HTTP API under `host.basePath` (default `/api/flows`) and the routes
 * of its custom inbound adapters (`host.inboundRoutes()`). It converts each request for the engine, which
 * reads the body, matches the path and answers; it writes back what the engine answers, event streams and
 * streamed bodies included, and passes on what the engine does not serve. A custom inbound route with a
 * method Node cannot receive, or a path that is not a valid Express route path, throws here.
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
  checkInboundMethods(host.inboundRoutes());
  const handle = createMountedHandler(host, options);

  const serve = async (req: Request, res: Response, next: NextFunction) => {
    try {
      const response = await handle(new ExpressRequest(req, res));
      if (response === null) next();
      else await sendResponse(res, response);
    } catch (error) {
      // Only the adapter's own failures land here (the engine answers its own with a problem).
      if (res.headersSent) {
        res.destroy();
        return;
      }
      host.logger.error("flow router failed", {
        method: req.method,
        path: req.originalUrl,
        error: describeError(error),
      });
      await sendResponse(res, problemResponse(error)).catch(() => res.destroy());
    }
  };
  const flowLayer = (req: Request, res: Response, next: NextFunction) => {
    void serve(req, res, next);
  };
  const router = Router();
  router.use(flowLayer);
  skipRouterPass(router, flowLayer);
  return router;
}

/**
 * While the flow layer is all the router holds, hands a request straight to it: the router's own pass over
 * its stack would only call it, and costs per request (measured with `HTTP_ROUTES=item pnpm bench http`, see
 * `packages/express/README.md`). Anything an application adds to the router brings the full pass back. A
 * router without a `handle` method (another Express) keeps its own pass.
 */
function skipRouterPass(
  router: Router,
  layer: (req: Request, res: Response, next: NextFunction) => void,
): void {
  const internals = router as unknown as {
    handle?: (req: Request, res: Response, out: NextFunction) => void;
  };
  const routerPass = internals.handle;
  if (typeof routerPass !== "function") return;
  internals.handle = (req, res, out) => {
    if (router.stack.length === 1) layer(req, res, out);
    else routerPass.call(router, req, res, out);
  };
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
