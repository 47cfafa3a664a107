import { errorFromResponse, FlowClientError, isFlowClientError, networkError } from "./errors.js";
import { SseParser } from "./sse-parser.js";
import { type FlowStreamEvent, isTerminalEvent, type TerminalStreamEvent } from "./stream-events.js";
import { type HeaderMap, route, type Transport } from "./transport.js";

export interface StreamOptions {
  /** Stops listening: the iteration ends (and `subscribe` resolves `undefined`) without an error. */
  signal?: AbortSignal;
  /** Resume after this event id (the `seq` of the last event already handled). */
  lastEventId?: string;
  /** Reconnects allowed in a row without receiving an event; the count resets on every event. @default 5 */
  maxRetries?: number;
  /** First reconnect delay in ms, doubled on each failure in a row (a server `retry:` replaces it). @default 500 */
  retryDelayMs?: number;
  /** Ceiling of the reconnect delay in ms. @default 10_000 */
  maxRetryDelayMs?: number;
  /**
   * A connection that delivers nothing (not even a `: ping` heartbeat, which the server sends every 15 s
   * by default) for this long is treated as dropped and reopened; `0` turns the check off.
   * @default 45_000
   */
  idleTimeoutMs?: number;
  /** Extra headers for the stream requests; they win over the client's `headers`. */
  headers?: HeaderMap;
}

export interface SubscribeOptions extends StreamOptions {
  /** Called once per event, in `seq` order; a returned promise is awaited before the next event. */
  onEvent: (event: FlowStreamEvent) => void | Promise<void>;
}

/** What the stream was opened from: a request id to GET, and maybe an already open response. */
export interface StreamSource {
  requestId?: string;
  response?: Response;
  /** Sees each event before it is yielded (the inline stream of an action call learns its ids this way). */
  observe?: (event: FlowStreamEvent) => void;
}

/** Statuses a gateway answers while the server restarts or is overloaded; worth another try. */
const TRANSIENT_STATUSES: ReadonlySet<number> = new Set([502, 503, 504]);

function invalidStream(detail: string, status = 200): FlowClientError {
  return new FlowClientError({
    status,
    code: "invalid-response",
    title: "Invalid event stream",
    detail,
  });
}

function seqOf(id: string | undefined): number | undefined {
  return id !== undefined && /^\d{1,15}$/.test(id) ? Number(id) : undefined;
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener("abort", done, { once: true });
  });
}

function backoff(failures: number, base: number, ceiling: number): number {
  const delay = Math.min(ceiling, base * 2 ** (failures - 1));
  // Half fixed, half random, so that many clients cut by one restart do not come back in step.
  return delay / 2 + Math.random() * (delay / 2);
}

function parseEvent(data: string, eventName: string, id: string | undefined): FlowStreamEvent {
  let parsed: unknown;
  try {
    parsed = JSON.parse(data);
  } catch {
    throw invalidStream(`An event's data is not JSON: ${JSON.stringify(data.slice(0, 80))}.`);
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) {
    throw invalidStream("An event's data is not a JSON object.");
  }
  const event = parsed as Record<string, unknown>;
  if (typeof event.type !== "string") event.type = eventName;
  if (typeof event.seq !== "number") {
    const seq = seqOf(id);
    if (seq !== undefined) event.seq = seq;
  }
  return event as unknown as FlowStreamEvent;
}

/**
 * The events of one request, each exactly once and in order, across dropped connections: a cut stream
 * is reopened with `Last-Event-ID` set to the last id seen, after a growing delay, until a terminal event
 * arrives. Network failures, 502/503/504 answers and a stream that ends before its terminal event are
 * retried (at most `maxRetries` in a row); any other error answer throws at once. Events at or below the
 * last seen `seq` are skipped, so a server that replays more than asked cannot cause a repeat. Returns
 * the terminal event, or `undefined` when stopped through `signal`.
 */
export async function* streamRequestEvents(
  transport: Transport,
  source: StreamSource,
  options: StreamOptions = {},
): AsyncGenerator<FlowStreamEvent, TerminalStreamEvent | undefined> {
  const maxRetries = options.maxRetries ?? 5;
  const retryDelayMs = options.retryDelayMs ?? 500;
  const maxRetryDelayMs = options.maxRetryDelayMs ?? 10_000;
  const idleTimeoutMs = options.idleTimeoutMs ?? 45_000;
  // One controller for every connection: the caller's signal and an early `return()` both close the socket.
  const controller = new AbortController();
  const stop = () => controller.abort(options.signal?.reason);
  if (options.signal?.aborted) return undefined;
  options.signal?.addEventListener("abort", stop, { once: true });

  let requestId = source.requestId;
  let response = source.response;
  let lastEventId = options.lastEventId;
  let lastSeq = seqOf(lastEventId) ?? 0;
  let serverRetry: number | undefined;
  let failures = 0;
  /** Why a connection was given up: nothing came for `idleTimeoutMs`, while opening or while reading. */
  const silence = () => new Error(`The event stream sent nothing for ${idleTimeoutMs} ms.`);
  try {
    for (;;) {
      let failure: unknown;
      let reader: ReadableStreamDefaultReader<Uint8Array> | undefined;
      let idleTimer: ReturnType<typeof setTimeout> | undefined;
      let idle = false;
      // This connection's own switch: the caller's stop closes it, and so does silence past `idleTimeoutMs`
      // while it opens (a dead keep-alive socket, a server that accepts and never answers).
      const attempt = new AbortController();
      const closeAttempt = () => attempt.abort(controller.signal.reason);
      controller.signal.addEventListener("abort", closeAttempt, { once: true });
      try {
        if (!response) {
          if (requestId === undefined) {
            throw invalidStream(
              "The stream was cut before its first event and the response carried no X-Request-Id, so it cannot be resumed.",
            );
          }
          const headers: HeaderMap = { ...options.headers };
          if (lastEventId !== undefined) headers["last-event-id"] = lastEventId;
          if (idleTimeoutMs > 0) {
            idleTimer = setTimeout(() => {
              idle = true;
              attempt.abort();
            }, idleTimeoutMs);
          }
          response = await transport.send("GET", route`/requests/${requestId}/stream`, {
            accept: "text/event-stream",
            call: { signal: attempt.signal, headers },
          });
          clearTimeout(idleTimer);
        }
        if (!response.ok) {
          const error = await errorFromResponse(response);
          if (!TRANSIENT_STATUSES.has(response.status)) throw error;
          failure = error;
        } else {
          const type = response.headers.get("content-type") ?? "";
          if (!type.includes("text/event-stream") || !response.body) {
            await response.body?.cancel().catch(() => {});
            throw invalidStream(
              `Expected a text/event-stream answer, got ${JSON.stringify(type)}.`,
              response.status,
            );
          }
          const open = response.body.getReader();
          reader = open;
          // Cancelling the reader ends a pending read() as if the server had closed: a silently dead
          // connection (a sleeping laptop, a lost mobile link) gets reopened like any other drop.
          const armIdleTimer = () => {
            clearTimeout(idleTimer);
            if (idleTimeoutMs <= 0) return;
            idleTimer = setTimeout(() => {
              idle = true;
              void open.cancel().catch(() => {});
            }, idleTimeoutMs);
          };
          const decoder = new TextDecoder();
          const parser = new SseParser();
          for (;;) {
            armIdleTimer();
            const { done, value } = await open.read();
            // Time spent by the consumer between reads is not the server's silence.
            clearTimeout(idleTimer);
            if (done) break;
            const messages = parser.push(decoder.decode(value, { stream: true }));
            serverRetry = parser.retry ?? serverRetry;
            for (const message of messages) {
              const event = parseEvent(message.data, message.event, message.id);
              const seq = seqOf(message.id) ?? (typeof event.seq === "number" ? event.seq : undefined);
              if (seq !== undefined && seq <= lastSeq) continue;
              if (seq !== undefined) lastSeq = seq;
              if (message.id !== undefined) lastEventId = message.id;
              if (requestId === undefined && typeof event.requestId === "string") requestId = event.requestId;
              source.observe?.(event);
              failures = 0;
              yield event;
              // Stopped while the consumer handled it: the events already received are not delivered.
              if (controller.signal.aborted) return undefined;
              if (isTerminalEvent(event)) return event;
            }
          }
          parser.end();
          failure = idle
            ? silence()
            : new Error("The event stream ended before the request's terminal event.");
        }
      } catch (error) {
        if (controller.signal.aborted) return undefined;
        if (idle) failure = silence();
        else if (isFlowClientError(error) && error.code !== "network-error") throw error;
        else failure = error;
      } finally {
        controller.signal.removeEventListener("abort", closeAttempt);
        clearTimeout(idleTimer);
        response = undefined;
        await reader?.cancel().catch(() => {});
      }
      failures += 1;
      if (failures > maxRetries) {
        if (isFlowClientError(failure)) throw failure;
        throw networkError(failure);
      }
      await sleep(backoff(failures, serverRetry ?? retryDelayMs, maxRetryDelayMs), controller.signal);
      if (controller.signal.aborted) return undefined;
    }
  } finally {
    options.signal?.removeEventListener("abort", stop);
    controller.abort();
  }
}

/** Drives {@link streamRequestEvents} through a callback; resolves with the terminal event. */
export async function subscribeToEvents(
  events: AsyncGenerator<FlowStreamEvent, TerminalStreamEvent | undefined>,
  onEvent: (event: FlowStreamEvent) => void | Promise<void>,
): Promise<TerminalStreamEvent | undefined> {
  for (;;) {
    const next = await events.next();
    if (next.done) return next.value;
    try {
      await onEvent(next.value);
    } catch (error) {
      await events.return(undefined);
      throw error;
    }
  }
}
