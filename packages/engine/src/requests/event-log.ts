import {
  type Fence,
  type JsonObject,
  type RequestEvent,
  type RequestStore,
  TERMINAL_REQUEST_STATUSES,
} from "@flowrt/core";
import { isoNow } from "./clock.js";
import { TERMINAL_EVENT_TYPES } from "./event-types.js";

export interface StreamOptions {
  /** Replay starts after this seq (from `Last-Event-ID` or `?after=`). @default 0 */
  afterSeq?: number;
  signal?: AbortSignal;
  /** Whether the request has already finished; then the log is replayed and the stream ends. */
  isFinished?: () => Promise<boolean>;
  /**
   * How long a finished request's stream waits for its terminal event: the runner writes the terminal
   * status just before it appends that event, and a host that dies in between never appends it.
   * @default 5_000
   */
  terminalGraceMs?: number;
}

/**
 * The events of one request in `seq` order, without gaps or repeats: replayed from the store's log,
 * then live. The stream subscribes before it reads the log, so an event appended in between is
 * neither lost nor doubled; a live event that arrives ahead of a gap makes it re-read the log. It ends
 * after a terminal event, at once when a finished request has nothing after `afterSeq` (a resume at or
 * past the end), or when `signal` aborts.
 */
export async function* streamRequestEvents(
  store: RequestStore,
  requestId: string,
  options: StreamOptions = {},
): AsyncGenerator<RequestEvent> {
  let last = Math.max(0, Math.floor(options.afterSeq ?? 0));
  let finishedAt: number | undefined;
  const queue: RequestEvent[] = [];
  let wake: (() => void) | undefined;
  const notify = () => {
    wake?.();
    wake = undefined;
  };
  const unsubscribe = store.subscribe(requestId, (event) => {
    queue.push(event);
    notify();
  });
  options.signal?.addEventListener("abort", notify, { once: true });
  try {
    for (;;) {
      if (options.signal?.aborted) return;
      // Drain the log up to what is stored, then whatever arrived live in order.
      const fromLog = await store.readEvents(requestId, last);
      for (const event of fromLog) {
        if (event.seq !== last + 1) break;
        last = event.seq;
        yield event;
        if (TERMINAL_EVENT_TYPES.has(event.type)) return;
      }
      let needLog = false;
      while (!needLog) {
        queue.sort((a, b) => a.seq - b.seq);
        while (queue.length > 0 && queue[0]!.seq <= last) queue.shift();
        const next = queue[0];
        if (next && next.seq === last + 1) {
          queue.shift();
          last = next.seq;
          yield next;
          if (TERMINAL_EVENT_TYPES.has(next.type)) return;
          continue;
        }
        if (next) {
          needLog = true; // a gap: the missing events are in the log
          break;
        }
        if (options.signal?.aborted) return;
        let waitMs = 1000; // a periodic look at the log covers a notification lost across processes
        if (options.isFinished && (await options.isFinished())) {
          const rest = await store.readEvents(requestId, last);
          if (rest.length > 0) {
            needLog = true; // finished while we waited: the log holds the end
            break;
          }
          // Nothing stored after `last`, and the client has seen everything when `last` is the terminal
          // event, or lies past the end of the log (a resume past the end): a finished request appends
          // at most its terminal event, which would land at or before `last`. The stream ends as after
          // a terminal event, with nothing sent.
          if (last > 0) {
            const seen = (await store.readEvents(requestId, last - 1, 1))[0];
            if (seen === undefined || TERMINAL_EVENT_TYPES.has(seen.type)) return;
          }
          finishedAt ??= Date.now();
          if (Date.now() - finishedAt >= (options.terminalGraceMs ?? 5_000)) return;
          waitMs = 25; // the terminal event is on its way: look again soon
        }
        if (queue.length > 0) continue; // arrived while isFinished was awaited
        const timedOut = await new Promise<boolean>((resolve) => {
          const timer = setTimeout(() => resolve(true), waitMs);
          timer.unref?.();
          wake = () => {
            clearTimeout(timer);
            resolve(false);
          };
        });
        if (timedOut) needLog = true;
      }
    }
  } finally {
    unsubscribe();
    options.signal?.removeEventListener("abort", notify);
  }
}

/**
 * Appends an event to a request's log; the store assigns its `seq`. The store's answer (the stored event) is of
 * no use to a writer and is not waited for apart.
 */
export function appendRequestEvent(
  store: RequestStore,
  requestId: string,
  type: string,
  data: JsonObject,
  fence?: Fence,
): Promise<unknown> {
  // The store copies what it keeps (as JSON), so the data goes in as given.
  const event = { requestId, type, at: isoNow(), data };
  return fence === undefined ? store.appendEvent(event) : store.appendEvent(event, fence);
}

/** A request's events from `afterSeq` on, replayed then live, ending after the terminal event. */
export function requestEvents(
  store: RequestStore,
  requestId: string,
  options: { afterSeq?: number; signal?: AbortSignal } = {},
): AsyncGenerator<RequestEvent> {
  return streamRequestEvents(store, requestId, {
    ...options,
    isFinished: async () => {
      const record = await store.get(requestId);
      return !record || TERMINAL_REQUEST_STATUSES.includes(record.status);
    },
  });
}
