import type { Fence, NewRequestEvent, RequestEvent } from "@flowrt/core";
import { AppendLog, readJsonLines } from "./internal/append-log.js";
import type { FenceGate } from "./internal/fence-gate.js";
import type { FsContext } from "./internal/fs-context.js";
import type { KeyedMutex } from "./internal/keyed-mutex.js";
import { fannedPath, nameOf } from "./internal/naming.js";
import {
  assertCount,
  assertFence,
  assertJsonObject,
  assertNonEmptyString,
  assertString,
  jsonCopy,
} from "./internal/validate.js";

interface LogState {
  log: AppendLog;
  /** The seq the next append gets; `null` until the file was read (or after a failed write). */
  next: number | null;
}

/**
 * Per-request event logs: `events/<2 hex>/<request hash>.jsonl`, one event per line, appended with
 * group commit. The next `seq` is kept in memory (read from the file on first use), so concurrent
 * appends get consecutive numbers; they are written in that order, so the file has no gaps.
 * Listeners are in-process.
 */
export class FsRequestEvents {
  private readonly states = new Map<string, LogState>();
  private readonly listeners = new Map<string, Set<(event: RequestEvent) => void>>();

  constructor(
    private readonly ctx: FsContext,
    private readonly mutex: KeyedMutex,
    private readonly fences: FenceGate,
  ) {}

  async append(event: NewRequestEvent, fence?: Fence): Promise<RequestEvent> {
    assertJsonObject(event, "event");
    assertNonEmptyString(event.requestId, "event.requestId");
    assertNonEmptyString(event.type, "event.type");
    assertString(event.at, "event.at");
    assertJsonObject(event.data, "event.data");
    assertFence(fence);
    const data = jsonCopy(event.data, "event.data");
    await this.ctx.ready();
    // The seq is taken after the fence check: a refused event uses none.
    return this.fences.write(fence, async () => {
      let state = await this.loaded(event.requestId);
      // A failed write elsewhere may have reset the counter while this call waited.
      while (state.next === null) state = await this.loaded(event.requestId);
      const stored: RequestEvent = {
        seq: state.next!++,
        type: event.type,
        requestId: event.requestId,
        at: event.at,
        data,
      };
      await state.log.append(JSON.stringify(stored), true, () => this.publish(stored));
      return structuredClone(stored);
    });
  }

  /**
   * Appends `events` (checked, with copied data) to request `requestId`'s log with the next seqs, after `before`
   * has run with them as they will be stored (an update writes its journal and record there). The seqs are taken
   * at once and `before` runs in the log's order, so appends made meanwhile wait and come after. Listeners hear
   * of the events once they are on disk. When `before` throws, nothing is appended, no seq is used, and appends
   * queued meanwhile are refused. Call under the request's lock.
   */
  async appendWith(
    requestId: string,
    events: readonly NewRequestEvent[],
    before: (stored: readonly RequestEvent[]) => Promise<void>,
  ): Promise<RequestEvent[]> {
    let state = await this.loaded(requestId);
    while (state.next === null) state = await this.loaded(requestId);
    // From the seqs to the queued transaction there is no await: the log's order is the seqs' order.
    const first = state.next!;
    state.next = first + events.length;
    const stored = events.map(
      (event, i): RequestEvent => ({
        seq: first + i,
        type: event.type,
        requestId,
        at: event.at,
        data: event.data,
      }),
    );
    await state.log.transaction(async (write) => {
      await before(stored);
      await write(stored.map((event) => JSON.stringify(event)));
      for (const event of stored) this.publish(event);
    });
    return stored.map((event) => structuredClone(event));
  }

  /**
   * At start, before any other use of the log: appends those of `events` (an unfinished update's, with their
   * seqs) that the log does not hold yet.
   */
  async recover(requestId: string, events: readonly RequestEvent[]): Promise<void> {
    const file = this.fileOf(requestId);
    const last = (await readJsonLines<RequestEvent>(file, { repair: true })).at(-1)?.seq ?? 0;
    const missing = events.filter((event) => event.seq > last);
    if (missing.length === 0) return;
    const log = new AppendLog(this.ctx, file);
    await log.transaction((write) => write(missing.map((event) => JSON.stringify(event))));
  }

  async read(requestId: string, afterSeq = 0, limit?: number): Promise<RequestEvent[]> {
    assertString(requestId, "requestId");
    assertCount(afterSeq, "afterSeq");
    assertCount(limit, "limit");
    await this.ctx.ready();
    const file = this.fileOf(requestId);
    const events =
      this.states.get(requestId)?.next != null
        ? // Appends of this instance may be in flight: read without touching the file.
          await readJsonLines<RequestEvent>(file, { repair: false })
        : // Nothing of this instance appends here yet, so a line a crash cut short can be cut off.
          await this.mutex.run(`events:${requestId}`, () =>
            readJsonLines<RequestEvent>(file, { repair: this.states.get(requestId)?.next == null }),
          );
    const after = events.filter((event) => event.seq > afterSeq);
    return limit === undefined ? after : after.slice(0, limit);
  }

  subscribe(requestId: string, listener: (event: RequestEvent) => void): () => void {
    assertString(requestId, "requestId");
    let set = this.listeners.get(requestId);
    if (!set) this.listeners.set(requestId, (set = new Set()));
    const entry = (event: RequestEvent) => listener(event);
    set.add(entry);
    return () => {
      const current = this.listeners.get(requestId);
      if (!current) return;
      current.delete(entry);
      if (current.size === 0) this.listeners.delete(requestId);
    };
  }

  /**
   * Removes a request's log (retention, removals). Call under the request's lock and its log's. With `count`,
   * resolves how many events the log held (it is read first); without it, 0.
   */
  async remove(requestId: string, count = false): Promise<number> {
    const state = this.states.get(requestId);
    if (state) await state.log.flush();
    this.states.delete(requestId);
    const file = this.fileOf(requestId);
    const held = count ? (await readJsonLines<RequestEvent>(file, { repair: false })).length : 0;
    await this.ctx.remove(file);
    return held;
  }

  async flush(): Promise<void> {
    await Promise.all([...this.states.values()].map((state) => state.log.flush()));
  }

  private fileOf(requestId: string): string {
    return this.ctx.resolve("events", fannedPath(nameOf(requestId), ".jsonl"));
  }

  private async loaded(requestId: string): Promise<LogState> {
    const ready = this.states.get(requestId);
    if (ready && ready.next !== null) return ready;
    return this.mutex.run(`events:${requestId}`, async () => {
      let state = this.states.get(requestId);
      if (state && state.next !== null) return state;
      const file = this.fileOf(requestId);
      const events = await readJsonLines<RequestEvent>(file, { repair: true });
      if (!state) {
        const created: LogState = {
          log: new AppendLog(this.ctx, file, () => {
            // After a failed write the file is the truth again: re-read it before the next append.
            created.next = null;
          }),
          next: null,
        };
        state = created;
        this.states.set(requestId, state);
      }
      state.next = (events.at(-1)?.seq ?? 0) + 1;
      return state;
    });
  }

  private publish(event: RequestEvent): void {
    const set = this.listeners.get(event.requestId);
    if (!set) return;
    for (const listener of [...set]) {
      try {
        listener(structuredClone(event));
      } catch {
        // A throwing listener must not break the append or starve the other listeners.
      }
    }
  }
}
