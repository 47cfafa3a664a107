import type { FlowHost } from "../host.js";
import { REQUEST_ID_HEADER } from "./request-id.js";
import type { HttpResponse } from "./types.js";

/** What the access line says of a request besides its answer. */
export interface AccessEntry {
  method: string;
  /** The request's id (`x-request-id`). */
  id: string;
  /** The route pattern that served it, as mounted (`/api/flows/sessions/:sessionId`); `undefined` when none matched. */
  route: string | undefined;
  /** `performance.now()` when the request came in. */
  startedAt: number;
}

/** A route's pattern as mounted: below `basePath` (`/` is the base path itself), or `undefined` when none matched. */
export function mountedPattern(basePath: string, route: string | undefined): string | undefined {
  if (route === undefined) return undefined;
  if (route === "/") return basePath === "" ? "/" : basePath;
  return `${basePath}${route}`;
}

/** The `route` of a request no route matched (a 404, a 405), so the line says so. */
export const UNMATCHED_ROUTE = "(unmatched)";

/**
 * The one access line of a request, at `info` on the host's logger: `reqId`, `method`, `route` (the pattern, never
 * the path or its query, which may carry ids or tokens), `status` and `durationMs`. No headers, no body.
 */
function writeAccessLine(host: FlowHost, entry: AccessEntry, status: number): void {
  const durationMs = Math.round((performance.now() - entry.startedAt) * 1000) / 1000;
  host.logger.info(
    { reqId: entry.id, method: entry.method, route: entry.route ?? UNMATCHED_ROUTE, status, durationMs },
    "request completed",
  );
}

/** `frames`, calling `ended` once when the stream ends however it ends (done, failed, or the transport stops). */
function endingOnce<T>(items: AsyncIterable<T>, ended: () => void): AsyncIterable<T> {
  let done = false;
  const end = () => {
    if (done) return;
    done = true;
    ended();
  };
  return {
    [Symbol.asyncIterator]() {
      const inner = items[Symbol.asyncIterator]();
      return {
        async next() {
          try {
            const step = await inner.next();
            if (step.done) end();
            return step;
          } catch (error) {
            end();
            throw error;
          }
        },
        async return(value?: unknown) {
          end();
          return inner.return ? inner.return(value) : { done: true as const, value: undefined as T };
        },
      };
    },
  };
}

/**
 * A response on its way out: the request id echoed as `x-request-id`, and the access line written (unless the host
 * turned it off) — at once, or for an event stream when it ends, so that its `durationMs` is the stream's life.
 */
export function answered(host: FlowHost, entry: AccessEntry, response: HttpResponse): HttpResponse {
  // An action's inline event stream has always named its flowrt request in `x-request-id` (the client resumes the
  // stream by it): a route that set the header keeps it; every other answer carries the HTTP request's id.
  response.headers[REQUEST_ID_HEADER] ??= entry.id;
  if (!host.accessLog) return response;
  if (response.stream !== undefined) {
    const frames = endingOnce(response.stream.frames, () => writeAccessLine(host, entry, response.status));
    response.stream = { ...response.stream, frames };
  } else if (response.chunks !== undefined) {
    response.chunks = endingOnce(response.chunks, () => writeAccessLine(host, entry, response.status));
  } else writeAccessLine(host, entry, response.status);
  return response;
}
