/**
 * Live delivery of request events across hosts. Appends NOTIFY `<seq>:<requestId>` on commit; one
 * listening connection per store (opened on the first subscribe) hears them. A notification only
 * says "read the log": each subscriber keeps the last seq it got and the hub reads the table after
 * it, so a lost, merged or late notification never skips or reorders an event.
 *
 * Where a subscriber starts: after the log's last seq read at subscribe time, lowered by the first
 * notification that arrives after it subscribed (events committed later always notify later) and by
 * any append this store made after the subscribe, but never below this store's own last append to the request
 * that had committed before the subscribe (its notification can arrive after the subscribe; seqs commit in
 * order, so nothing up to it is new). Whenever the listener (re)starts (first subscribe
 * of a store, or after a dropped connection) the log is read again from there, so events committed
 * while no notification could arrive are not lost. Re-delivery
 * of an event the consumer also read from the log is possible; consumers deduplicate by seq.
 */
import type { RequestEvent } from "@flowrt/core";
import { closedError } from "./checked-driver.js";
import type { PostgresDriver, PostgresListener } from "./driver.js";
import { toEvent } from "./rows.js";
import type { StoreSql } from "./sql.js";

interface Subscriber {
  listener: (event: RequestEvent) => void;
  /** Last seq delivered or skipped; null until the starting point is known. */
  after: number | null;
  delivered: boolean;
  /** Order of creation, to tell whether an append started after the subscribe. */
  tick: number;
  /** The seq of this store's last append to the request committed before the subscribe (0: none known). */
  floor: number;
  open: boolean;
}

const PAGE = 500;
/** Requests whose last own append is remembered (for {@link Subscriber.floor}); the oldest are forgotten. */
const OWN_APPENDS_KEPT = 1_024;
const RETRY_MS = [100, 500, 1_000, 5_000];

export class EventHub {
  private readonly subscribers = new Map<string, Set<Subscriber>>();
  private readonly pumps = new Map<string, { again: boolean }>();
  private listener: PostgresListener | null = null;
  private starting: Promise<void> | null = null;
  private listening = false;
  private failures = 0;
  private retryTimer: ReturnType<typeof setTimeout> | null = null;
  private tick = 0;
  private closed = false;
  /** The last seq this store appended per request, most recent requests last (at most OWN_APPENDS_KEPT). */
  private readonly ownAppends = new Map<string, number>();

  constructor(
    private readonly driver: PostgresDriver,
    private readonly sql: StoreSql,
    private readonly channel: string,
    private readonly onError: (error: unknown) => void,
  ) {}

  subscribe(requestId: string, listener: (event: RequestEvent) => void): () => void {
    if (this.closed) throw closedError();
    const sub: Subscriber = {
      listener,
      after: null,
      delivered: false,
      tick: ++this.tick,
      floor: this.ownAppends.get(requestId) ?? 0,
      open: true,
    };
    let set = this.subscribers.get(requestId);
    if (!set) {
      set = new Set();
      this.subscribers.set(requestId, set);
    }
    set.add(sub);
    if (!this.listening) this.startListening();
    // The log's last seq now is where the subscriber starts at the latest, listening or not: if the
    // listening connection drops before this subscriber's first notification, the log read on reconnect
    // still starts here, and nothing committed during the outage is lost. A notification of an earlier
    // seq lowers it, as before.
    this.driver
      .query<{ last_seq: unknown }>(this.sql.requests.lastSeq, [requestId])
      .then(({ rows }) => {
        this.lowerStart(sub, rows[0] ? Number(rows[0].last_seq) : 0);
        this.pump(requestId);
      })
      .catch(this.onError);
    return () => {
      sub.open = false;
      const current = this.subscribers.get(requestId);
      current?.delete(sub);
      if (current?.size === 0) this.subscribers.delete(requestId);
    };
  }

  /** Marks the start of an append by this store; pass the result to {@link appended}. */
  beginAppend(): number {
    return this.tick;
  }

  /** An append by this store committed: deliver without waiting for the notification. */
  appended(requestId: string, seq: number, startTick: number): void {
    // Re-inserted, so the map's order is by last append; appends of one request may return out of order.
    const last = Math.max(seq, this.ownAppends.get(requestId) ?? 0);
    this.ownAppends.delete(requestId);
    this.ownAppends.set(requestId, last);
    if (this.ownAppends.size > OWN_APPENDS_KEPT) {
      const oldest = this.ownAppends.keys().next().value;
      if (oldest !== undefined) this.ownAppends.delete(oldest);
    }
    const set = this.subscribers.get(requestId);
    if (!set) return;
    for (const sub of set) if (sub.tick <= startTick) this.lowerStart(sub, seq - 1);
    this.pump(requestId);
  }

  async close(): Promise<void> {
    this.closed = true;
    this.subscribers.clear();
    if (this.retryTimer) clearTimeout(this.retryTimer);
    await this.starting?.catch(() => {});
    const listener = this.listener;
    this.listener = null;
    this.listening = false;
    await listener?.close();
  }

  private lowerStart(sub: Subscriber, candidate: number): void {
    if (sub.delivered) return;
    sub.after = sub.after === null ? candidate : Math.min(sub.after, candidate);
  }

  private notified(payload: string): void {
    const colon = payload.indexOf(":");
    const seq = Number(payload.slice(0, colon));
    const requestId = payload.slice(colon + 1);
    if (colon < 0 || !Number.isInteger(seq) || requestId === "") {
      // A request id too long for a notification: check every subscribed request.
      for (const id of this.subscribers.keys()) this.pump(id);
      return;
    }
    const set = this.subscribers.get(requestId);
    if (!set) return;
    for (const sub of set) this.lowerStart(sub, Math.max(seq - 1, sub.floor));
    this.pump(requestId);
  }

  private startListening(): void {
    if (this.starting || this.listening || this.closed || this.retryTimer) return;
    this.starting = this.driver
      .listen(
        this.channel,
        (payload) => this.notified(payload),
        (error) => this.lost(error),
      )
      .then(
        async (listener) => {
          this.starting = null;
          if (this.closed) {
            await listener.close();
            return;
          }
          this.listener = listener;
          this.listening = true;
          this.failures = 0;
          // Catch up on whatever committed while the listener was starting.
          for (const id of this.subscribers.keys()) this.pump(id);
        },
        (error) => {
          this.starting = null;
          this.lost(error);
        },
      );
  }

  private lost(error: unknown): void {
    this.listener = null;
    this.listening = false;
    if (this.closed) return;
    this.onError(error);
    if (this.retryTimer) clearTimeout(this.retryTimer);
    const delay = RETRY_MS[Math.min(this.failures, RETRY_MS.length - 1)] as number;
    this.failures++;
    this.retryTimer = setTimeout(() => {
      this.retryTimer = null;
      if (this.subscribers.size > 0) this.startListening();
    }, delay);
    this.retryTimer.unref?.();
  }

  /** Reads the log after the subscribers' positions and delivers in order; one run per request at a time. */
  private pump(requestId: string): void {
    const running = this.pumps.get(requestId);
    if (running) {
      running.again = true;
      return;
    }
    const state = { again: false };
    this.pumps.set(requestId, state);
    const run = async () => {
      do {
        state.again = false;
        await this.drain(requestId);
      } while (state.again && !this.closed);
    };
    run()
      .catch(this.onError)
      .finally(() => this.pumps.delete(requestId));
  }

  private async drain(requestId: string): Promise<void> {
    for (;;) {
      const set = this.subscribers.get(requestId);
      if (!set || this.closed) return;
      const ready = [...set].filter((sub) => sub.after !== null);
      if (ready.length === 0) return;
      const from = Math.min(...ready.map((sub) => sub.after as number));
      const { rows } = await this.driver.query(this.sql.requests.readEvents, [requestId, from, PAGE]);
      for (const row of rows) {
        for (const sub of ready) {
          if (!sub.open || sub.after === null || Number(row.seq) <= sub.after) continue;
          sub.after = Number(row.seq);
          sub.delivered = true;
          try {
            sub.listener(toEvent(row));
          } catch (error) {
            this.onError(error);
          }
        }
      }
      if (rows.length < PAGE) return;
    }
  }
}
