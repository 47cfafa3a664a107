import { FlowError } from "@flowrt/core";
import type { HttpContext } from "./context.js";
import { queryString } from "./request-body.js";
import { SSE_HEADERS, sseStream } from "./sse.js";
import type { HttpRequest, HttpResponse } from "./types.js";

/** The quality `Accept` gives a media type (its own range only; `q` defaults to 1); 0 when not named. */
function acceptQuality(accept: string, mediaType: string): number {
  let quality = 0;
  for (const range of accept.split(",")) {
    const [type, ...params] = range.split(";");
    if (type?.trim().toLowerCase() !== mediaType) continue;
    const q = params.map((param) => param.trim().match(/^q=([\d.]+)$/i)?.[1]).find((v) => v !== undefined);
    const value = q === undefined ? 1 : Number(q);
    if (Number.isFinite(value)) quality = Math.max(quality, Math.min(value, 1));
  }
  return quality;
}

/** `Accept` names `text/event-stream` with a quality above 0, and not below that of `application/json`. */
export function wantsEventStream(request: HttpRequest): boolean {
  const header = request.headers.accept;
  const accept = Array.isArray(header) ? header.join(",") : (header ?? "");
  if (!accept.toLowerCase().includes("text/event-stream")) return false;
  const stream = acceptQuality(accept, "text/event-stream");
  return stream > 0 && stream >= acceptQuality(accept, "application/json");
}

/** Where a resumed stream starts: after `Last-Event-ID`, else after `?after=`, else from the first event. */
export function lastEventId(request: HttpRequest): number {
  const header = request.headers["last-event-id"];
  const given = Array.isArray(header) ? header[0] : header;
  // An empty header (a client that has seen nothing yet) says nothing: `?after=` still applies.
  const raw = given !== undefined && given !== "" ? given : queryString(request, "after");
  if (raw === undefined || raw === "") return 0;
  if (!/^\d{1,15}$/.test(raw)) {
    throw new FlowError("invalid-request", "Last-Event-ID (or ?after=) must be a non-negative integer.", {
      details: { field: "after" },
    });
  }
  return Number(raw);
}

/** A request's events after `afterSeq` as an event-stream answer, stopping when the client goes away. */
export function streamResponse(
  ctx: HttpContext,
  requestId: string,
  request: HttpRequest,
  afterSeq: number,
  status = 200,
) {
  const signal = request.signal;
  return {
    status,
    headers: { ...SSE_HEADERS },
    stream: sseStream(
      ctx.host.events(requestId, { afterSeq, ...(signal ? { signal } : {}) }),
      ctx.heartbeatMs,
      signal,
    ),
  } satisfies HttpResponse;
}
