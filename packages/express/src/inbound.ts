import { METHODS, type ServerResponse } from "node:http";
import { DefinitionError } from "@flowrt/core";
import { inboundRouteLabel, type SourcedInboundRoute } from "@flowrt/engine";
import type { Request as ExpressRequest } from "express";
import { write } from "./send-response.js";

/**
 * Methods Express's router can serve: those Node's parser knows. (The host has already refused what no
 * handler could receive: CONNECT, TRACE, TRACK.)
 */
const EXPRESS_METHODS = new Set(METHODS);

const label = (route: SourcedInboundRoute) => inboundRouteLabel(route.source, route);

/**
 * The route's method as Express's router names it (lower case). The host checked the route's shape
 * (`host.inboundRoutes()`); this refuses, with a `DefinitionError` naming the route and its adapter, a
 * method Node and Express do not know.
 */
export function inboundMethod(route: SourcedInboundRoute): string {
  const method = route.method.toUpperCase();
  if (!EXPRESS_METHODS.has(method)) {
    throw new DefinitionError(
      `${label(route)}: unsupported method ${JSON.stringify(route.method)}. Express routes the methods Node ` +
        "parses (GET, POST, PUT, PATCH, DELETE, OPTIONS, PROPFIND, …).",
    );
  }
  return method.toLowerCase();
}

/** Why a route could not be registered with Express (an invalid route path), as a `DefinitionError`. */
export function invalidInboundPath(route: SourcedInboundRoute, error: unknown): DefinitionError {
  const reason = error instanceof Error ? error.message : String(error);
  const refusal = new DefinitionError(
    `${label(route)}: the path is not a valid Express route path (${reason}).`,
  );
  refusal.cause = error;
  return refusal;
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
  // An object (what middleware that wraps writeHead reads), with every Set-Cookie kept apart as a list.
  const headers: Record<string, string | string[]> = {};
  response.headers.forEach((value, name) => {
    if (name !== "set-cookie") headers[name] = value;
  });
  const cookies = response.headers.getSetCookie();
  if (cookies.length > 0) headers["set-cookie"] = cookies;
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
