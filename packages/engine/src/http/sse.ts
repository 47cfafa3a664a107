import type { RequestEvent } from "@flowrt/core";

/** The headers of every `text/event-stream` response. */
export const SSE_HEADERS: Readonly<Record<string, string>> = {
  "content-type": "text/event-stream; charset=utf-8",
  "cache-control": "no-cache, no-transform",
  "x-accel-buffering": "no",
  connection: "keep-alive",
};

/** The comment an idle stream sends so that proxies and clients keep the connection open. */
export const SSE_PING = ": ping\n\n";

/** Formats one event as SSE lines. */
export function formatSseEvent(event: RequestEvent): string {
  const envelope: Record<string, unknown> = {
    seq: event.seq,
    type: event.type,
    requestId: event.requestId,
    at: event.at,
  };
  // The envelope's fields win over a payload field of the same name.
  for (const [key, value] of Object.entries(event.data))
    if (!Object.hasOwn(envelope, key)) envelope[key] = value;
  const data = JSON.stringify(envelope);
  return `id: ${event.seq}\nevent: ${event.type}\ndata: ${data}\n\n`;
}

/** A request's event stream as an engine response carries it. */
export interface SseStream {
  /** Events to send, in order. Iterate either these or {@link SseStream.frames}, not both. */
  events: AsyncIterable<RequestEvent>;
  /** Comment lines (`: ping`) are sent this often while the stream is idle. @default 15_000 */
  heartbeatMs: number;
  /**
   * The exact bytes to send, as text: one `id:`/`event:`/`data:` message per event ({@link formatSseEvent})
   * and `: ping` comments while idle, ending after the terminal event or when the request's signal aborts.
   * A transport writes each string as it comes, and asks for the next one once the write is done.
   */
  frames: AsyncIterable<string>;
}

const TICK = Symbol("tick");
const ABORTED = Symbol("aborted");

/**
 * Waits for `pending`, a tick after `ms`, or `signal`, whichever comes first; the timer and the listener are
 * gone once it settles.
 */
function nextOrTick<T>(
  pending: Promise<T>,
  ms: number,
  signal: AbortSignal | undefined,
): Promise<T | typeof TICK | typeof ABORTED> {
  return new Promise((resolve, reject) => {
    const settle = () => {
      clearTimeout(timer);
      signal?.removeEventListener("abort", aborted);
    };
    const aborted = () => {
      settle();
      resolve(ABORTED);
    };
    const timer = setTimeout(() => {
      settle();
      resolve(TICK);
    }, ms);
    signal?.addEventListener("abort", aborted, { once: true });
    pending.then(
      (value) => {
        settle();
        resolve(value);
      },
      (error: unknown) => {
        settle();
        reject(error);
      },
    );
  });
}

/**
 * A request's events as the exact SSE text a transport sends: each event formatted by
 * {@link formatSseEvent}, and {@link SSE_PING} whenever no frame was asked for and sent for `heartbeatMs`.
 * It ends after the last event (the events end after the terminal one), or at once when `signal` aborts
 * (the client went away), leaving no timer or listener behind. A consumer that stops early (`break`)
 * returns the events' iterator.
 */
export async function* sseFrames(
  events: AsyncIterable<RequestEvent>,
  heartbeatMs: number,
  signal?: AbortSignal,
): AsyncGenerator<string, void, undefined> {
  if (signal?.aborted) return;
  const iterator = events[Symbol.asyncIterator]();
  // The iterator's next event, asked for once and awaited across heartbeats.
  let pending: Promise<IteratorResult<RequestEvent>> | undefined;
  let finished = false;
  try {
    for (;;) {
      pending ??= iterator.next();
      const next = await nextOrTick(pending, heartbeatMs, signal);
      if (next === ABORTED) return;
      if (next === TICK) {
        yield SSE_PING;
        continue;
      }
      pending = undefined;
      if (next.done) {
        finished = true;
        return;
      }
      yield formatSseEvent(next.value);
    }
  } finally {
    if (!finished) {
      // Not awaited while a `next` is outstanding: an async generator answers `return` only after it, and the
      // events end by themselves once the signal that stopped this stream reaches them.
      const closing = iterator.return?.();
      if (pending === undefined) await closing;
      else closing?.catch(() => {});
    }
  }
}

/** The {@link SseStream} of a request's events. */
export function sseStream(
  events: AsyncIterable<RequestEvent>,
  heartbeatMs: number,
  signal?: AbortSignal,
): SseStream {
  return { events, heartbeatMs, frames: sseFrames(events, heartbeatMs, signal) };
}
