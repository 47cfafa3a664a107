import type { JsonObject, NewRequestEvent } from "@flowrt/core";
import { isoNow } from "./clock.js";

/** The events a run defers: its blocks' start and end, which nothing in the block waits on being stored. */
const DEFERRED: ReadonlySet<string> = new Set(["block.started", "block.completed"]);

/** Writes one event of the run (the claim's append, fenced when the run is durable). */
export type EventAppend = (event: NewRequestEvent) => Promise<unknown>;

/**
 * A run's event writes, in order. Every event but the blocks' `block.started` and `block.completed` is written when
 * emitted, and its promise settles once it is stored (or refused). Those two are kept and written together: at the
 * next turn of the event loop (so a live reader sees a long block start at once), before the next event emitted, or,
 * for a block that ends first, with the request's terminal write ({@link takeDeferred}): an instant handler's run
 * then costs the store two writes, its claim and its end. A deferred write the store refuses is the run's to act on
 * (`onRefused`: it stops the run, as a refused event did when awaited); the next emit and the end see it.
 */
export class RunEvents {
  private deferred: NewRequestEvent[] = [];
  /** The deferred events being written, until they are. */
  private flushing: Promise<void> | undefined;
  private timer: NodeJS.Immediate | undefined;
  /** What a deferred write failed with, other than a refusal `onRefused` turned into the run's stop. */
  failure: unknown;

  constructor(
    private readonly requestId: string,
    private readonly append: EventAppend,
    /** A deferred write failed: stop the run (a refusal) and answer true, or answer false (kept as {@link failure}). */
    private readonly onRefused: (error: unknown, type: string) => boolean,
    /** Whether the run may still write (not aborted, not left): deferred events of a stopped run are dropped. */
    private readonly mayWrite: () => boolean,
  ) {}

  emit(type: string, data: JsonObject): Promise<unknown> {
    const event: NewRequestEvent = { requestId: this.requestId, type, at: isoNow(), data };
    if (DEFERRED.has(type)) {
      this.deferred.push(event);
      this.timer ??= setImmediate(() => {
        this.timer = undefined;
        void this.flush();
      });
      return Promise.resolve();
    }
    if (this.failure !== undefined) return Promise.reject(this.failure);
    if (this.deferred.length === 0 && this.flushing === undefined) return this.append(event);
    return this.flush().then(() => {
      if (this.failure !== undefined) throw this.failure;
      return this.append(event);
    });
  }

  /**
   * For the terminal write: the deferred events not written yet, once any write of them under way has settled.
   * From here on, nothing deferred is written by this.
   */
  async takeDeferred(): Promise<NewRequestEvent[]> {
    if (this.timer !== undefined) {
      clearImmediate(this.timer);
      this.timer = undefined;
    }
    if (this.flushing !== undefined) await this.flushing;
    const events = this.deferred;
    this.deferred = [];
    return this.mayWrite() ? events : [];
  }

  /** Writes the deferred events, after a write of them already under way. */
  private flush(): Promise<void> {
    const events = this.deferred;
    if (events.length === 0) return this.flushing ?? Promise.resolve();
    this.deferred = [];
    const previous = this.flushing;
    const flushing = (
      previous === undefined ? this.write(events) : previous.then(() => this.write(events))
    ).finally(() => {
      if (this.flushing === flushing) this.flushing = undefined;
    });
    this.flushing = flushing;
    return flushing;
  }

  private async write(events: readonly NewRequestEvent[]): Promise<void> {
    for (const event of events) {
      if (!this.mayWrite() || this.failure !== undefined) return;
      try {
        await this.append(event);
      } catch (error) {
        if (!this.onRefused(error, event.type)) this.failure = error;
        return;
      }
    }
  }
}
