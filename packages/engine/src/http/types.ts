import type { HostLogger } from "../logger.js";
import type { SseStream } from "./sse.js";

/** A request as any transport can describe it. Header names are lower-case. */
export interface HttpRequest {
  method: string;
  /** Path relative to the host's `basePath`, still percent-encoded (e.g. `/sessions/s1/resources/files/a%2Fb`). */
  path: string;
  /** The full original URL (path and query), given to principal resolvers. */
  url: string;
  query: Record<string, string | string[] | undefined>;
  headers: Record<string, string | string[] | undefined>;
  /** The exact body bytes; the layer parses JSON itself. */
  rawBody?: Uint8Array;
  /**
   * The body still to read, when `rawBody` is not given (a Node `IncomingMessage` is one): the handler reads
   * it under its body limit, sets `rawBody` to the bytes, and answers 413 or 400 itself when it cannot.
   */
  body?: AsyncIterable<Uint8Array | string>;
  /** Aborts when the client goes away (streams stop). */
  signal?: AbortSignal;
  /**
   * The request's id, set by the engine as the request comes in: its `x-request-id` when valid, else a new UUID
   * (`request-id.ts`). Echoed as `x-request-id` on the answer, bound as `reqId` into `log`.
   */
  id?: string;
  /** The host's logger bound to this request (`reqId`), set by the engine as the request comes in. */
  log?: HostLogger;
  /** The pattern of the route serving the request, as declared (relative to `basePath`); set once one matched. */
  route?: string;
}

export interface HttpResponse {
  status: number;
  headers: Record<string, string>;
  /** A JSON body (serialised by the transport), absent for 204. */
  body?: unknown;
  /**
   * The JSON body already serialised, when the engine laid it out itself (pages of stored states): a
   * transport sends these bytes as they are. `body` still reads as the parsed value for a transport
   * that only knows `body`.
   */
  bodyText?: string;
  /** Set instead of `body` for `text/event-stream` responses. */
  stream?: SseStream;
  /** The reason phrase to send beside the status, when not the standard one (custom inbound routes). */
  statusText?: string;
  /** `Set-Cookie` header lines, each sent as a header of its own (custom inbound routes). */
  setCookie?: string[];
  /**
   * A body of bytes to send as they come, set instead of `body` (a custom inbound route's streamed
   * `Response`). A transport stops asking for chunks once its client is gone.
   */
  chunks?: AsyncIterable<Uint8Array>;
}

export function json(status: number, body: unknown, headers: Record<string, string> = {}): HttpResponse {
  return { status, headers: { "content-type": "application/json; charset=utf-8", ...headers }, body };
}

/** A JSON response whose body is already JSON text (see {@link HttpResponse.bodyText}). */
class JsonTextResponse implements HttpResponse {
  readonly status: number;
  readonly headers: Record<string, string>;
  readonly bodyText: string;

  constructor(status: number, bodyText: string) {
    this.status = status;
    this.headers = { "content-type": "application/json; charset=utf-8" };
    this.bodyText = bodyText;
  }

  get body(): unknown {
    return JSON.parse(this.bodyText);
  }
}

export function jsonText(status: number, bodyText: string): HttpResponse {
  return new JsonTextResponse(status, bodyText);
}
