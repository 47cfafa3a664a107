import { randomUUID } from "node:crypto";
import { METHODS } from "node:http";
import {
  createMountedHandler,
  type FlowHost,
  type MountedRequest,
  problemResponse,
  REQUEST_ID_HEADER,
  requestIdOf,
} from "@flowrt/engine";
import { type NextFunction, type Request, type Response, Router } from "express";
import { bodyStream, keptBody } from "./raw-body.js";
import { sendResponse } from "./send-response.js";

export interface FlowRouterOptions {
  /** Largest accepted request body in bytes; larger ones are answered 413 without being buffered. @default 1048576 (1 MiB) */
  bodyLimit?: number;
  /** How often an idle event stream sends a `: ping` comment, in milliseconds. @default 15000 */
  heartbeatMs?: number;
}

const ROUTER_OPTIONS: ReadonlySet<string> = new Set<keyof FlowRouterOptions>(["bodyLimit", "heartbeatMs"]);
type Layer = (req: Request, res: Response, next: NextFunction) => void;

/**
 * The engine's view of an Express request. A class, so every request has one shape and its getters live on the
 * prototype: the origin (protocol and host as Express reports them, so `trust proxy` applies) and the signal that
 * aborts when the client goes away are made only if asked for.
 */
class ExpressRequest implements MountedRequest {
  readonly method: string;
  readonly target: string;
  readonly url: string;
  readonly headers: Request["headers"];
  readonly rawHeaders: string[];
  readonly rawBody: Buffer | undefined;
  readonly body: AsyncIterable<Uint8Array> | undefined;
  readonly #req: Request;
  readonly #res: Response;
  #gone: AbortController | undefined;

  constructor(req: Request, res: Response) {
    this.method = req.method;
    this.target = req.url;
    this.url = req.originalUrl;
    this.headers = req.headers;
    this.rawHeaders = req.rawHeaders;
    // The bytes a parser's `verify` hook kept, else the stream the engine reads.
    this.rawBody = keptBody(req);
    this.body = this.rawBody === undefined ? bodyStream(req) : undefined;
    this.#req = req;
    this.#res = res;
  }

  /** As the application's `trust proxy` setting says (the socket's own address without one); read when asked. */
  get remoteAddress(): string | undefined {
    return this.#req.ip ?? this.#req.socket.remoteAddress;
  }

  get origin(): string {
    return `${this.#req.protocol}://${this.#req.host || "localhost"}`;
  }

  get signal(): AbortSignal {
    if (this.#gone) return this.#gone.signal;
    const gone = new AbortController();
    this.#gone = gone;
    const res = this.#res;
    if (res.destroyed && !res.writableFinished) gone.abort();
    else res.once("close", () => res.writableFinished || gone.abort());
    return gone.signal;
  }
}

/**
 * An Express router serving a host's API under `host.basePath` (default `/api/flows`) and its custom inbound
 * routes: the engine reads, matches and answers each request, the router writes the answer or passes the
 * request on. An inbound route Node cannot receive, or with no valid Express route path, throws here.
 *
 * @example
 * await host.start();
 * app.use(createFlowRouter(host));
 */
export function createFlowRouter(host: FlowHost, options: FlowRouterOptions = {}): Router {
  const unknown = Object.keys(options).find((key) => !ROUTER_OPTIONS.has(key));
  if (unknown !== undefined) {
    const hint =
      unknown === "basePath" ? '; the base path is a host option: createFlowHost({ basePath: "/v2" })' : "";
    throw new TypeError(
      `createFlowRouter: unknown option "${unknown}" (it takes bodyLimit and heartbeatMs)${hint}.`,
    );
  }
  const handle = createMountedHandler(host, { ...options, methods: METHODS });
  const serve = async (req: Request, res: Response, next: NextFunction) => {
    try {
      const response = await handle(new ExpressRequest(req, res));
      if (response === null) next();
      else await sendResponse(res, response);
    } catch (error) {
      // Only the adapter's own failures land here: the engine answers and logs its own.
      if (res.headersSent) return void res.destroy();
      const errorId = randomUUID();
      const reqId = requestIdOf(req.headers);
      const path = req.originalUrl.split("?")[0];
      host.logger.error({ reqId, method: req.method, path, errorId, err: error }, "flow router failed");
      const problem = problemResponse(error, { errorId, expose: host.exposeErrors });
      problem.headers[REQUEST_ID_HEADER] = reqId;
      await sendResponse(res, problem).catch(() => res.destroy());
    }
  };
  const flowLayer: Layer = (req, res, next) => void serve(req, res, next);
  const router = Router();
  router.use(flowLayer);
  skipRouterPass(router, flowLayer);
  return router;
}

/**
 * While the flow layer is all the router holds, hands a request straight to it: Express's pass over the
 * stack would only call it (measured: `packages/express/README.md`, "Choices"). Anything added to the
 * router brings the full pass back; without a `handle` to replace, the router keeps its own pass.
 */
function skipRouterPass(router: Router, layer: Layer): void {
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
