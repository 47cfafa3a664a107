import { METHODS, type ServerResponse } from "node:http";
import type { InboundRoute } from "@flowrt/engine";
import type { Request as ExpressRequest } from "express";
import { write } from "./send-response.js";

/** A custom inbound route as `host.inboundRoutes()` gives it: tagged with its adapter's source. */
export type SourcedInboundRoute = InboundRoute & { source: string };

/**
 * Methods an inbound route may declare: those Node's parser and Express's router know, less the ones a
 * WHATWG `Request` cannot carry (TRACE, TRACK) or that never reach a request handler (CONNECT).
 */
const UNSERVABLE = new Set(["CONNECT", "TRACE", "TRACK"]);
const SERVABLE_METHODS = new Set(METHODS.filter((method) => !UNSERVABLE.has(method)));

function label(route: SourcedInboundRoute): string {
  return `Inbound route ${String(route.method)} ${String(route.path)} of adapter "${String(route.source)}"`;
}

/**
 * The route's method as Express's router names it (lower case), after checking the route's shape.
 * Throws a `TypeError` naming the route and its adapter for anything that could not be served.
 */
export function inboundMethod(route: SourcedInboundRoute): string {
  if (typeof route.handler !== "function")
    throw new TypeError(`${label(route)}: handler must be a function.`);
  if (typeof route.path !== "string" || !route.path.startsWith("/")) {
    throw new TypeError(
      `${label(route)}: path must be the full request path, starting with "/" (prefix included, not relative to basePath).`,
    );
  }
  const method = typeof route.method === "string" ? route.method.toUpperCase() : "";
  if (!SERVABLE_METHODS.has(method)) {
    throw new TypeError(
      `${label(route)}: unsupported method ${JSON.stringify(route.method)}. Use an HTTP method Node and ` +
        "Express route (GET, POST, PUT, PATCH, DELETE, OPTIONS, …); CONNECT, TRACE and TRACK cannot be served.",
    );
  }
  return method.toLowerCase();
}

/** Why a route could not be registered with Express (an invalid route path), as a clear `TypeError`. */
export function invalidInboundPath(route: SourcedInboundRoute, error: unknown): TypeError {
  const reason = error instanceof Error ? error.message : String(error);
  return new TypeError(`${label(route)}: the path is not a valid Express route path (${reason}).`, {
    cause: error,
  });
}

/**
 * The request's absolute URL: protocol and host as Express reports them (so `trust proxy` applies), then
 * `originalUrl` (the full path, whatever the router was mounted under). `null` when the Host header does
 * not make a URL.
 */
export function requestUrl(req: ExpressRequest): URL | null {
  const origin = `${req.protocol}://${req.host || "localhost"}`;
  const target = req.originalUrl;
  try {
    // Concatenated rather than resolved, so a path starting with `//` stays a path; absolute-form
    // request targets (`GET http://host/path`) are already URLs.
    return target.startsWith("/") ? new URL(`${origin}${target}`) : new URL(target, `${origin}/`);
  } catch {
    return null;
  }
}

/**
 * A WHATWG `Request` for an Express request: every header as received (repeated ones included), and
 * `body` (the exact bytes) for methods that may carry one. `signal` aborts when the client goes away.
 */
export function toWebRequest(
  req: ExpressRequest,
  url: URL,
  body: Buffer | undefined,
  signal: AbortSignal,
): Request {
  const headers = new Headers();
  const raw = req.rawHeaders;
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const name = raw[i]!;
    // HTTP/2 pseudo-headers (`:path`, …) are not header fields.
    if (!name.startsWith(":")) headers.append(name, raw[i + 1]!);
  }
  return new Request(url, {
    method: req.method,
    headers,
    signal,
    ...(body !== undefined && body.length > 0 ? { body } : {}),
  });
}

/** How a value that is not a `Response` is named in the log (its type only, never its content). */
export function notAResponse(value: unknown): TypeError {
  const kind =
    value === null
      ? "null"
      : typeof value === "object"
        ? `an object (${(value as object).constructor?.name ?? "no prototype"})`
        : typeof value;
  return new TypeError(`The inbound route handler returned ${kind}, not a Response.`);
}

/**
 * Writes a handler's `Response`: status (and reason phrase, when it has one), every header (each
 * `Set-Cookie` on its own line), then the body chunk by chunk as the handler's stream produces it, waiting
 * for the socket when it pushes back. A HEAD request gets the headers only, and the body is cancelled.
 * A client that goes away cancels the body stream (so an event source stops producing) and ends the
 * send quietly; the promise rejects only for the handler's side (its stream failed, or gave no bytes).
 */
export async function sendWebResponse(res: ServerResponse, response: Response, head: boolean): Promise<void> {
  const headers: string[] = [];
  response.headers.forEach((value, name) => {
    if (name !== "set-cookie") headers.push(name, value);
  });
  for (const cookie of response.headers.getSetCookie()) headers.push("set-cookie", cookie);
  if (response.statusText !== "") res.statusMessage = response.statusText;
  const body = response.body;
  if (head || body === null) {
    res.writeHead(response.status, headers);
    res.end();
    body?.cancel().catch(() => {});
    return;
  }
  // Taken before anything is written: a body already read fails here, while a 500 can still be sent.
  const reader = body.getReader();
  res.writeHead(response.status, headers);
  // Headers go out at once, so a client of a slow stream (server-sent events) sees the response start.
  res.flushHeaders();
  const gone = () => {
    if (!res.writableFinished) reader.cancel().catch(() => {});
  };
  res.once("close", gone);
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      if (!(await write(res, value))) {
        await reader.cancel().catch(() => {});
        return;
      }
    }
    if (!res.destroyed && !res.writableEnded) res.end();
  } finally {
    res.off("close", gone);
  }
}
