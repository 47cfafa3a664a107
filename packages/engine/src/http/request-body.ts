import { FlowError, type PrincipalResolutionRequest } from "@flowrt/core";
import type { Caller } from "../host/types.js";
import type { HttpRequest } from "./types.js";
import { decodeUtf8 } from "./utf8.js";

/** The default body limit: 1 MiB. */
export const DEFAULT_BODY_LIMIT = 1024 * 1024;

/**
 * Parses a JSON body: empty → `undefined`; malformed → 400 `invalid-json`. The size limit (413) is
 * enforced once, for every route, by the handler before any route runs.
 */
export function parseJsonBody(request: HttpRequest): unknown {
  const raw = request.rawBody;
  if (!raw || raw.byteLength === 0) return undefined;
  const text = decodeUtf8(raw);
  if (text === null) throw new FlowError("invalid-json", "The request body is not valid UTF-8.");
  if (text.trim() === "") return undefined;
  try {
    return JSON.parse(text);
  } catch {
    throw new FlowError("invalid-json", "The request body is not valid JSON.");
  }
}

/** An object body (or `{}` when empty); anything else is a 400. */
export function parseObjectBody(request: HttpRequest): Record<string, unknown> {
  const body = parseJsonBody(request);
  if (body === undefined) return {};
  if (typeof body !== "object" || body === null || Array.isArray(body)) {
    throw new FlowError("invalid-request", "The request body must be a JSON object.");
  }
  return body as Record<string, unknown>;
}

export function parseCookies(header: string | string[] | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  if (header === undefined) return out;
  const text = Array.isArray(header) ? header.join("; ") : header;
  for (const part of text.split(";")) {
    const eq = part.indexOf("=");
    if (eq <= 0) continue;
    const name = part.slice(0, eq).trim();
    let value = part.slice(eq + 1).trim();
    if (value.startsWith('"') && value.endsWith('"')) value = value.slice(1, -1);
    try {
      value = decodeURIComponent(value);
    } catch {
      // keep the raw value
    }
    if (name && !Object.hasOwn(out, name)) out[name] = value;
  }
  return out;
}

/** The caller of an HTTP request: headers, cookies and URL for resolvers; the body only where given. */
export function httpCaller(request: HttpRequest, body?: unknown): Caller {
  const resolution: PrincipalResolutionRequest = {
    method: request.method,
    url: request.url,
    headers: request.headers,
    cookies: parseCookies(request.headers.cookie),
  };
  const caller: Caller = { source: "http", request: resolution };
  if (request.rawBody) caller.rawBody = request.rawBody;
  if (body !== undefined) caller.body = body;
  return caller;
}

export function optionalString(body: Record<string, unknown>, field: string): string | undefined {
  const value = body[field];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== "string") {
    throw new FlowError("invalid-request", `"${field}" must be a string.`, { details: { field } });
  }
  return value;
}

export function queryString(request: HttpRequest, name: string): string | undefined {
  const value = request.query[name];
  if (Array.isArray(value)) {
    throw new FlowError("invalid-request", `Query parameter "${name}" was given more than once.`, {
      details: { field: name },
    });
  }
  return value;
}
