import type { IncomingHttpHeaders } from "node:http";
import { createHttpHandler, type FlowHost, type HttpRequest } from "@flowrt/engine";
import { type Request, type Response, Router } from "express";
import { problem } from "./problem.js";
import { BodyReadError, discardBody, readRawBody } from "./raw-body.js";
import { sendResponse } from "./send-response.js";

export interface FlowRouterOptions {
  /** Largest accepted request body in bytes; larger ones are answered 413 without being buffered. @default 1048576 (1 MiB) */
  bodyLimit?: number;
  /** How often an idle event stream sends a `: ping` comment, in milliseconds. @default 15000 */
  heartbeatMs?: number;
}

const DEFAULT_BODY_LIMIT = 1024 * 1024;

function queryOf(search: string): HttpRequest["query"] {
  const query: Record<string, string | string[]> = {};
  for (const [name, value] of new URLSearchParams(search)) {
    const seen = query[name];
    query[name] = seen === undefined ? value : Array.isArray(seen) ? [...seen, value] : [seen, value];
  }
  return query;
}

function headersOf(headers: IncomingHttpHeaders): HttpRequest["headers"] {
  const out: HttpRequest["headers"] = {};
  for (const [name, value] of Object.entries(headers)) out[name] = value;
  return out;
}

/**
 * An Express router serving a host's HTTP API under `host.basePath` (default `/api/flows`). It reads the
 * raw body itself for every content type (no `express.json()` needed), hands the request to the engine's
 * transport-neutral handler and writes back what the engine answers, event streams included.
 *
 * @example
 * await host.start();
 * app.use(createFlowRouter(host));
 */
export function createFlowRouter(host: FlowHost, options: FlowRouterOptions = {}): Router {
  const bodyLimit = options.bodyLimit ?? DEFAULT_BODY_LIMIT;
  const handle = createHttpHandler(host, {
    bodyLimit,
    ...(options.heartbeatMs !== undefined ? { heartbeatMs: options.heartbeatMs } : {}),
  });

  const serve = async (req: Request, res: Response) => {
    const aborted = new AbortController();
    // `close` before the response finished means the client went away: stop streams and work for it.
    res.once("close", () => {
      if (!res.writableFinished) aborted.abort();
    });
    try {
      const rawBody = await readRawBody(req, bodyLimit);
      // Inside the mount, `req.url` is the path below `basePath`, still percent-encoded.
      const relative = req.url;
      const q = relative.indexOf("?");
      const path = q < 0 ? relative : relative.slice(0, q);
      const response = await handle({
        method: req.method,
        path: path.startsWith("/") ? path : `/${path}`,
        url: req.originalUrl,
        query: queryOf(q < 0 ? "" : relative.slice(q + 1)),
        headers: headersOf(req.headers),
        rawBody,
        signal: aborted.signal,
      });
      await sendResponse(res, response, req.method === "HEAD");
    } catch (error) {
      if (error instanceof BodyReadError && error.status === 499) return;
      if (res.headersSent) {
        res.destroy();
        return;
      }
      if (error instanceof BodyReadError) {
        await discardBody(req);
        const extra = error.status === 413 ? { limit: bodyLimit } : {};
        problem(res, error.status, error.code, error.message, extra);
        return;
      }
      host.logger.error("flow router failed", {
        method: req.method,
        path: req.originalUrl,
        error: error instanceof Error ? `${error.name}: ${error.message}` : String(error),
      });
      problem(res, 500, "internal-error", "An unexpected error occurred.");
    }
  };

  const router = Router();
  const handler = (req: Request, res: Response) => void serve(req, res);
  if (host.basePath === "") router.use(handler);
  else router.use(host.basePath, handler);
  return router;
}
