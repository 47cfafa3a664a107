import type { NewRequestEvent, RequestEvent } from "@flowrt/core";
import { checkString, jsonObjectText } from "./json-text.js";

export type ListenerErrorHandler = (error: unknown, event: RequestEvent) => void;
type Listener = (event: RequestEvent) => void;

/** One event being delivered to listeners: its type, time and data as JSON text. */
interface StoredEvent {
  readonly type: string;
  readonly at: string;
  readonly data: string;
}

function materialize(requestId: string, seq: number, type: string, at: string, data: string): RequestEvent {
  return { seq, type, requestId, at, data: JSON.parse(data) };
}

/** An event stored and waiting for its delivery. */
interface Pending {
  readonly requestId: string;
  readonly seq: number;
  readonly stored: StoredEvent;
}

/** An event's fields checked, its data as JSON text. */
export interface CheckedEvent {
  readonly requestId: string;
  readonly type: string;
  readonly at: string;
  readonly data: string;
}

function checked(event: NewRequestEvent): CheckedEvent {
  if (typeof event !== "object" || event === null || typeof event.requestId !== "string") {
    throw new TypeError("store-memory: an event needs a string requestId.");
  }
  checkString(event.type, "event type");
  checkString(event.at, "event at");
  return {
    requestId: event.requestId,
    type: event.type,
    at: event.at,
    data: jsonObjectText(event.data, "event data"),
  };
}

/** Members per event in a log: type, time, data text. */
const STRIDE = 3;

/**
 * Per-request event logs and their live listeners. A log is one flat array of `type, at, data` triples
 * (no object per event for the garbage collector to copy and mark while the request is retained), so an
 * append can neither skip nor repeat a `seq`: event `seq` sits at `(seq - 1) * 3`. Events are kept as
 * text: an append stringifies the data once; every reader, listener and the append's caller gets its
 * own parse.
 */
export class MemoryEventLog {
  private readonly logs = new Map<string, string[]>();
  private readonly listeners = new Map<string, Set<Listener>>();
  /** Events appended by a listener while another event is being delivered, delivered after it. */
  private readonly pending: Pending[] = [];
  private delivering = false;

  constructor(private readonly onListenerError: ListenerErrorHandler) {}

  append(event: NewRequestEvent): RequestEvent {
    const { requestId, type, at, data } = checked(event);
    let log = this.logs.get(requestId);
    if (log === undefined) this.logs.set(requestId, (log = [type, at, data]));
    else log.push(type, at, data);
    const seq = log.length / STRIDE;
    if (this.listeners.has(requestId))
      this.notify(requestId, [{ requestId, seq, stored: { type, at, data } }]);
    return materialize(requestId, seq, type, at, data);
  }

  /**
   * Checks `events`, all of request `requestId`, for {@link appendChecked}: throws on the first bad one, storing
   * nothing, so that a caller can check them before it writes anything else.
   */
  check(requestId: string, events: readonly NewRequestEvent[]): readonly CheckedEvent[] {
    if (!Array.isArray(events)) throw new TypeError("store-memory: update effects' events must be an array.");
    return events.map((event) => {
      const one = checked(event);
      if (one.requestId !== requestId) {
        throw new TypeError(
          `store-memory: an update of request "${requestId}" carries an event of request "${one.requestId}".`,
        );
      }
      return one;
    });
  }

  /**
   * Appends events {@link check}ed for request `requestId` with the next seqs: all are stored before any listener
   * hears of one, and listeners get them in order.
   */
  appendChecked(requestId: string, events: readonly CheckedEvent[]): void {
    if (events.length === 0) return;
    let log = this.logs.get(requestId);
    if (log === undefined) this.logs.set(requestId, (log = []));
    const first = log.length / STRIDE + 1;
    for (const { type, at, data } of events) log.push(type, at, data);
    if (this.listeners.has(requestId)) {
      this.notify(
        requestId,
        events.map(({ type, at, data }, i) => ({ requestId, seq: first + i, stored: { type, at, data } })),
      );
    }
  }

  /** Events after `afterSeq`, at most `limit` (a non-negative integer or `Infinity`). */
  read(requestId: string, afterSeq: number, limit: number): RequestEvent[] {
    const log = this.logs.get(requestId);
    if (log === undefined) return [];
    const from = Math.max(0, Math.floor(afterSeq));
    const to = Math.min(log.length / STRIDE, from + limit);
    const out: RequestEvent[] = [];
    for (let i = from; i < to; i++) {
      const at = i * STRIDE;
      out.push(materialize(requestId, i + 1, log[at]!, log[at + 1]!, log[at + 2]!));
    }
    return out;
  }

  subscribe(requestId: string, listener: Listener): () => void {
    let set = this.listeners.get(requestId);
    if (set === undefined) this.listeners.set(requestId, (set = new Set()));
    // Each call gets its own token, so subscribing one function twice needs two unsubscribes.
    const token: Listener = (event) => listener(event);
    set.add(token);
    return () => {
      const current = this.listeners.get(requestId);
      if (current === undefined) return;
      current.delete(token);
      if (current.size === 0) this.listeners.delete(requestId);
    };
  }

  /** Drops a request's log (retention, removal); returns how many events it held. */
  delete(requestId: string): number {
    const log = this.logs.get(requestId);
    if (log === undefined) return 0;
    this.logs.delete(requestId);
    return log.length / STRIDE;
  }

  listenerCount(): number {
    let total = 0;
    for (const set of this.listeners.values()) total += set.size;
    return total;
  }

  clearListeners(): void {
    this.listeners.clear();
  }

  /**
   * Delivers `batch` (consecutive events of one request) at once, unless a listener appended it during another
   * delivery: then it waits until that one reached every listener. Events a listener appends meanwhile wait
   * behind the rest of the batch, so each listener still sees its request's events in seq order.
   */
  private notify(requestId: string, batch: Pending[]): void {
    if (this.delivering) {
      this.pending.push(...batch);
      return;
    }
    this.delivering = true;
    try {
      for (let i = 1; i < batch.length; i++) this.pending.push(batch[i]!);
      const first = batch[0]!;
      const subscribed = this.listeners.get(requestId);
      if (subscribed !== undefined) this.deliver(subscribed, requestId, first.seq, first.stored);
      for (let i = 0; i < this.pending.length; i++) {
        const next = this.pending[i]!;
        const current = this.listeners.get(next.requestId);
        if (current !== undefined) this.deliver(current, next.requestId, next.seq, next.stored);
      }
    } finally {
      this.pending.length = 0;
      this.delivering = false;
    }
  }

  private deliver(subscribed: Set<Listener>, requestId: string, seq: number, stored: StoredEvent): void {
    // The listeners subscribed when the event was stored, each with its own copy: one that
    // unsubscribes or subscribes another mid-delivery changes nothing for this event.
    const targets = subscribed.size === 1 ? subscribed.values().next().value! : [...subscribed];
    if (typeof targets === "function") {
      this.call(targets, requestId, seq, stored);
      return;
    }
    for (const listener of targets) this.call(listener, requestId, seq, stored);
  }

  private call(listener: Listener, requestId: string, seq: number, stored: StoredEvent): void {
    try {
      listener(materialize(requestId, seq, stored.type, stored.at, stored.data));
    } catch (error) {
      this.onListenerError(error, materialize(requestId, seq, stored.type, stored.at, stored.data));
    }
  }
}
