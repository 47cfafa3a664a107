import {
  type Attributes,
  context,
  defaultTextMapGetter,
  propagation,
  ROOT_CONTEXT,
  type Span,
  SpanKind,
  SpanStatusCode,
  type Tracer,
  trace,
} from "@opentelemetry/api";
import { type EngineMetrics, engineMetrics, engineTracer, NO_TRACER } from "./instruments.js";

/** What the wrapper reads of a request (the engine's `HttpRequest` fits). */
export interface TracedHttpRequest {
  method: string;
  /** The full original URL, path and query. */
  url: string;
  headers: Record<string, string | string[] | undefined>;
  /** The request id the transport gave it (`x-request-id`, validated, else a new one). */
  id?: string | undefined;
  /** The route pattern (relative to the base path) that served it, once one matched. */
  route?: string | undefined;
}

/** What the wrapper reads of a response (the engine's `HttpResponse` fits). */
export interface TracedHttpResponse {
  status: number;
  headers: Record<string, string>;
}

/** The methods the HTTP semantic conventions name; any other is `_OTHER`. */
const KNOWN_METHODS: ReadonlySet<string> = new Set([
  "GET",
  "HEAD",
  "POST",
  "PUT",
  "DELETE",
  "CONNECT",
  "OPTIONS",
  "TRACE",
  "PATCH",
]);

const SERVER_SPAN = Object.freeze({ kind: SpanKind.SERVER });

/**
 * Wraps an HTTP handler in a server span and the `http.server.request.duration` histogram, after the HTTP semantic
 * conventions: the span is named `{METHOD} {route}` (`http.route` being `basePath` and the route pattern), its
 * parent is what the globally registered propagator extracts from the headers (W3C `traceparent` with the SDK's
 * default), and a 5xx sets `error.type` (the problem's code) and the span's status. With no SDK registered the
 * span is the API's non-recording one and no attribute object is built.
 */
export function traceHttpRequests<Req extends TracedHttpRequest, Res extends TracedHttpResponse>(
  basePath: string,
  handler: (request: Req) => Promise<Res>,
): (request: Req) => Promise<Res> {
  const traced = async (request: Req, tracer: Tracer, meters: EngineMetrics): Promise<Res> => {
    const parent = propagation.extract(ROOT_CONTEXT, request.headers, defaultTextMapGetter);
    const span = tracer.startSpan(methodOf(request.method), SERVER_SPAN, parent);
    const recording = span.isRecording();
    // No SDK: nothing to record, nothing to propagate.
    if (!recording && !meters.enabled && !trace.isSpanContextValid(span.spanContext()))
      return handler(request);
    const started = performance.now();
    let status = 500;
    let errorType: string | undefined;
    try {
      const response = await context.with(trace.setSpan(parent, span), handler, undefined, request);
      status = response.status;
      if (status >= 500) errorType = problemCode(response) ?? String(status);
      return response;
    } catch (error) {
      errorType = error instanceof Error ? error.name : "_OTHER";
      throw error;
    } finally {
      const route = request.route;
      const method = methodOf(request.method);
      const scheme = schemeOf(request.headers);
      if (recording) endServerSpan(span, request, { method, scheme, route, basePath, status, errorType });
      span.end();
      if (meters.enabled) {
        const attributes: Attributes = {
          "http.request.method": method,
          "http.response.status_code": status,
          "url.scheme": scheme,
        };
        if (route !== undefined) attributes["http.route"] = basePath + route;
        if (errorType !== undefined) attributes["error.type"] = errorType;
        meters.requestDuration.record((performance.now() - started) / 1000, attributes);
      }
    }
  };
  return (request) => {
    const meters = engineMetrics();
    const tracer = engineTracer();
    // No SDK: the handler itself, with no span, no histogram and no promise of its own around it.
    if (tracer === undefined && !meters.enabled) return handler(request);
    return traced(request, tracer ?? NO_TRACER, meters);
  };
}

function endServerSpan(
  span: Span,
  request: TracedHttpRequest,
  seen: {
    method: string;
    scheme: string;
    route: string | undefined;
    basePath: string;
    status: number;
    errorType: string | undefined;
  },
): void {
  const { method, route, status, errorType } = seen;
  const name = method === "_OTHER" ? "HTTP" : method;
  if (route !== undefined) {
    span.updateName(`${name} ${seen.basePath}${route}`);
    span.setAttribute("http.route", seen.basePath + route);
  } else if (name !== method) {
    span.updateName(name);
  }
  span.setAttribute("http.request.method", method);
  if (method === "_OTHER") span.setAttribute("http.request.method_original", request.method);
  const query = request.url.indexOf("?");
  span.setAttribute("url.path", query < 0 ? request.url : request.url.slice(0, query));
  span.setAttribute("url.scheme", seen.scheme);
  span.setAttribute("http.response.status_code", status);
  if (request.id !== undefined) span.setAttribute("flowrt.http.request_id", request.id);
  // Server spans: a 4xx is the client's failure, not the server's (the conventions leave their status unset).
  if (errorType !== undefined) {
    span.setAttribute("error.type", errorType);
    span.setStatus({ code: SpanStatusCode.ERROR, message: errorType });
  }
}

function methodOf(method: string): string {
  const upper = method.toUpperCase();
  return KNOWN_METHODS.has(upper) ? upper : "_OTHER";
}

function headerValue(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

/**
 * `https` when a proxy in front says so (`X-Forwarded-Proto`), else `http`: the transport-neutral request does
 * not carry the socket. A forged header changes only this attribute.
 */
function schemeOf(headers: TracedHttpRequest["headers"]): string {
  const forwarded = headerValue(headers["x-forwarded-proto"]);
  return forwarded !== undefined && forwarded.split(",")[0]!.trim().toLowerCase() === "https"
    ? "https"
    : "http";
}

/** A 5xx problem's catalogue `code` (read only for 5xx answers, which are plain problem objects). */
function problemCode(response: TracedHttpResponse): string | undefined {
  const body = (response as { body?: unknown }).body;
  const code = typeof body === "object" && body !== null ? (body as { code?: unknown }).code : undefined;
  return typeof code === "string" ? code : undefined;
}
