import { FlowError, type PrincipalResolutionRequest } from "@flowrt/core";
import type { Caller } from "../access/caller.js";
import { decodeUtf8 } from "../utf8.js";
import type { HttpRequest } from "./types.js";

/** The default body limit: 1 MiB. */
export const DEFAULT_BODY_LIMIT = 1024 * 1024;

/**
 * How deep a JSON body may nest. `JSON.parse` reads any depth, but what handles the value afterwards
 * (`JSON.stringify` in the stores, schema parsers, structured clones) recurses and overflows the stack
 * a few thousand levels down; a body deeper than this is refused as it arrives.
 */
export const MAX_JSON_DEPTH = 512;

/** Whether `value` nests arrays and objects more than `limit` levels deep (walked without recursion). */
function nestedDeeperThan(value: unknown, limit: number): boolean {
  const values: unknown[] = [value];
  const depths: number[] = [1];
  while (values.length > 0) {
    const current = values.pop();
    const depth = depths.pop()!;
    if (typeof current !== "object" || current === null) continue;
    if (depth > limit) return true;
    for (const key in current) {
      values.push((current as Record<string, unknown>)[key]);
      depths.push(depth + 1);
    }
  }
  return false;
}

function firstHeader(request: HttpRequest, name: string): string {
  const value = request.headers[name];
  return (Array.isArray(value) ? value[0] : value) ?? "";
}

/** `application/json` or a `+json` type, whatever its parameters. */
function isJsonMediaType(contentType: string): boolean {
  const type = contentType.split(";")[0]!.trim().toLowerCase();
  return type === "application/json" || /^[a-z0-9.+-]+\/[a-z0-9.+-]+\+json$/.test(type);
}

/**
 * Whether a browser sent the request from a page of another site. Its fetch metadata says so
 * (`Sec-Fetch-Site: cross-site` or `same-site`); a browser that sends none (an older one, or a page served over
 * plain HTTP, which gets none) still names the page's origin in `Origin` on a POST, which is then compared with
 * the host the request was sent to (`Host`, or `X-Forwarded-Host` behind a proxy). `Origin: null` (a sandboxed
 * or privacy-masked page) is another site. Requests with neither header (servers, scripts, tests) are not.
 */
function fromAnotherSite(request: HttpRequest): boolean {
  const site = firstHeader(request, "sec-fetch-site").toLowerCase();
  if (site !== "") return site === "cross-site" || site === "same-site";
  const origin = firstHeader(request, "origin");
  if (origin === "") return false;
  let host: string;
  try {
    host = new URL(origin).host.toLowerCase();
  } catch {
    return true; // `null`, or no URL at all
  }
  const targets = [
    firstHeader(request, "host"),
    firstHeader(request, "x-forwarded-host").split(",")[0]!.trim(),
  ];
  return !targets.some((target) => target !== "" && target.toLowerCase() === host);
}

/**
 * Refuses a write a page on another site could have sent without asking (cross-site request forgery): only a
 * body declared `application/json` (or a method other than GET, HEAD and POST) makes a browser ask first, with
 * a CORS preflight the application's CORS policy answers. A form post, or a `text/plain` or untyped body, from
 * another site ({@link fromAnotherSite}) would otherwise act with the visitor's cookies. For every route that
 * writes, webhooks included (a provider sends neither fetch metadata nor `Origin`, so its deliveries pass).
 */
export function refuseCrossSiteNonJson(request: HttpRequest): void {
  if (!fromAnotherSite(request)) return;
  if (isJsonMediaType(firstHeader(request, "content-type"))) return;
  throw new FlowError(
    "unsupported-media-type",
    "A request from another site must send its body as Content-Type: application/json.",
  );
}

/**
 * Parses a JSON body: empty → `undefined`; malformed, or nested deeper than {@link MAX_JSON_DEPTH} →
 * 400 `invalid-json`. The size limit (413) and the cross-site check ({@link refuseCrossSiteNonJson}) are
 * enforced once, for every route, by the handler before any route runs.
 */
export function parseJsonBody(request: HttpRequest): unknown {
  const raw = request.rawBody;
  if (!raw || raw.byteLength === 0) return undefined;
  const text = decodeUtf8(raw);
  if (text === null) throw new FlowError("invalid-json", "The request body is not valid UTF-8.");
  if (text.trim() === "") return undefined;
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new FlowError("invalid-json", "The request body is not valid JSON.");
  }
  // Each level takes at least two characters (`[]`): a shorter text cannot be too deep, and is not walked.
  if (text.length > 2 * MAX_JSON_DEPTH && nestedDeeperThan(body, MAX_JSON_DEPTH)) {
    throw new FlowError("invalid-json", `The request body nests deeper than ${MAX_JSON_DEPTH} levels.`);
  }
  return body;
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
  // One shape for every caller (the log is there whether or not the transport set one).
  const caller: Caller = { source: "http", request: resolution, log: request.log };
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

/**
 * Every value of a query parameter that may repeat (`?userId=a&userId=b`), in order; `undefined` when it
 * is absent. For filters where each value only narrows, so a repeat is not an error.
 */
export function queryValues(request: HttpRequest, name: string): string[] | undefined {
  const value = request.query[name];
  if (value === undefined) return undefined;
  return Array.isArray(value) ? value : [value];
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
