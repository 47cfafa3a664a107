import type {
  ActiveRequestEntry,
  CasResult,
  Fence,
  NewRequestEvent,
  RequestCreateOptions,
  RequestEvent,
  RequestPatch,
  RequestRecord,
  RequestStatus,
  RequestStore,
  RequestUpdateEffects,
  RetentionPolicy,
  SessionRecord,
} from "@flowrt/core";
import { FlowError, TERMINAL_REQUEST_STATUSES } from "@flowrt/core";
import { FsActiveRegistry } from "./active-registry.js";
import { compareStrings } from "./internal/compare-strings.js";
import type { DocTable } from "./internal/doc-table.js";
import { EffectsJournal } from "./internal/effects-journal.js";
import type { FenceGate } from "./internal/fence-gate.js";
import type { FsContext } from "./internal/fs-context.js";
import type { KeyedMutex } from "./internal/keyed-mutex.js";
import { LazyLoad } from "./internal/lazy-load.js";
import { mapLimit } from "./internal/map-limit.js";
import { RequestSummaries, summaryOf } from "./internal/request-summaries.js";
import { type CheckedEffects, checkEffects } from "./internal/update-effects.js";
import {
  assertCount,
  assertJsonObject,
  assertNonEmptyString,
  assertString,
  jsonCopy,
} from "./internal/validate.js";
import { FsRequestEvents } from "./request-events.js";
import { checkedSession } from "./session-store.js";

/** Called by retention with the sessions whose last stored request it removed. */
export type SessionsEmptied = (sessionIds: string[]) => Promise<void>;

/** The session store's part in `create(record, { session })` (see `FsSessionStore.createWith`). */
export interface OwnSessions {
  createWith(
    session: SessionRecord,
    create: (store: () => Promise<void>) => Promise<boolean>,
  ): Promise<boolean>;
  restore(session: SessionRecord): Promise<void>;
}

const TERMINAL = new Set<RequestStatus>(TERMINAL_REQUEST_STATUSES);

/**
 * Requests (one file per id under `requests/`), their event logs and the active registry.
 * Summaries for `listByStatus`, `listBySession`, `purgeFinished` and the removals are built by reading the
 * folder once, on the first such call of this instance.
 */
export class FsRequestStore implements RequestStore {
  private readonly events: FsRequestEvents;
  private readonly active: FsActiveRegistry;
  /** Writes with effects in flight, by request: reads of the request wait for them (see {@link settled}). */
  private readonly inflight = new Map<string, Promise<unknown>>();
  private readonly summaries = new LazyLoad(() =>
    this.table.scan().then((docs) => new RequestSummaries(docs.map((doc) => summaryOf(doc.data)))),
  );

  /**
   * `table` is the requests folder that `fences` reads epochs from; every change of a request record goes through
   * `fences.change`, so no fenced write sits between its check and its write while a claim lands.
   */
  constructor(
    private readonly ctx: FsContext,
    private readonly mutex: KeyedMutex,
    private readonly table: DocTable<RequestRecord>,
    private readonly fences: FenceGate,
    private readonly sessionsEmptied?: SessionsEmptied,
    private readonly sessions?: OwnSessions,
    private readonly journal: EffectsJournal = new EffectsJournal(ctx),
  ) {
    this.events = new FsRequestEvents(ctx, mutex, fences);
    this.active = new FsActiveRegistry(ctx, mutex);
  }

  async create(record: RequestRecord, options?: RequestCreateOptions): Promise<boolean> {
    assertJsonObject(record, "record");
    assertNonEmptyString(record.id, "record.id");
    assertString(record.status, "record.status");
    assertString(record.createdAt, "record.createdAt");
    const copy = jsonCopy(record, "record");
    if (options !== undefined && (typeof options !== "object" || options === null))
      throw new FlowError("invalid-request", "options must be an object.");
    const session = options?.session === undefined ? undefined : checkedSession(options.session);
    if (session !== undefined && session.id !== copy.sessionId) {
      throw new FlowError(
        "invalid-request",
        `Request "${copy.id}" runs in session "${copy.sessionId}", not in the session "${session.id}" given to create with it.`,
      );
    }
    await this.ctx.ready();
    if (session === undefined) {
      return this.mutex.run(`request:${copy.id}`, async () => {
        if ((await this.table.read(copy.id)) !== null) return false;
        await this.table.write(copy.id, copy);
        await this.noteSummary(copy);
        return true;
      });
    }
    const sessions = this.sessions;
    if (sessions === undefined)
      throw new FlowError("store-error", "This request store has no session store.");
    // The session's lock, then the request's (the order a session's removal takes them in).
    return sessions.createWith(session, (storeSession) =>
      this.mutex.run(`request:${copy.id}`, async () => {
        if ((await this.table.read(copy.id)) !== null) return false;
        // The journal first, then the record (the commit), then the session: a crash after the record leaves
        // the session to the next start.
        const tx = await this.journal.begin({ id: copy.id, v: copy.version, session });
        await this.table.write(copy.id, copy);
        await storeSession();
        this.journal.end(tx);
        await this.noteSummary(copy);
        return true;
      }),
    );
  }

  async get(id: string): Promise<RequestRecord | null> {
    assertString(id, "id");
    await this.ctx.ready();
    await this.settled(id);
    return this.table.read(id);
  }

  async update(
    id: string,
    expectedVersion: number,
    patch: RequestPatch,
    effects?: RequestUpdateEffects,
  ): Promise<CasResult<RequestRecord>> {
    assertString(id, "id");
    assertCount(expectedVersion, "expectedVersion", "invalid-request");
    assertJsonObject(patch, "patch");
    assertCount(patch.epoch, "patch.epoch", "invalid-request");
    const copy = jsonCopy(patch, "patch");
    const checked = effects === undefined ? undefined : checkEffects(id, effects);
    await this.ctx.ready();
    return this.fences.change(id, () =>
      this.mutex.run(`request:${id}`, async (): Promise<CasResult<RequestRecord>> => {
        const current = await this.table.read(id);
        if (current === null) return { ok: false, current: null };
        if (current.version !== expectedVersion)
          return { ok: false, current: { value: current, version: current.version } };
        const next = applyPatch(current, copy);
        if (checked === undefined || (checked.active === undefined && checked.events.length === 0)) {
          await this.table.write(id, next);
        } else {
          const writing = this.writeWithEffects(next, checked);
          this.inflight.set(id, writing);
          try {
            await writing;
          } finally {
            if (this.inflight.get(id) === writing) this.inflight.delete(id);
          }
        }
        await this.noteSummary(next);
        return { ok: true, version: next.version };
      }),
    );
  }

  /**
   * Writes an updated record with its effects as one unit: the journal's intent (fsynced), the record (the
   * commit), the active change, the events (fsynced, then told to listeners), the journal's done line. Events
   * take their seqs in the log's order, so appends made meanwhile come after them. Under the request's lock.
   */
  private async writeWithEffects(next: RequestRecord, effects: CheckedEffects): Promise<void> {
    const id = next.id;
    const commit = async (events: readonly RequestEvent[] | undefined): Promise<string> => {
      const tx = await this.journal.begin({
        id,
        v: next.version,
        ...(effects.active !== undefined ? { active: effects.active } : {}),
        ...(events !== undefined ? { events: [...events] } : {}),
      });
      await this.table.write(id, next);
      if (effects.active === null) await this.active.clear(id);
      else if (effects.active !== undefined) await this.active.mark(effects.active);
      return tx;
    };
    let tx: string | undefined;
    if (effects.events.length === 0) tx = await commit(undefined);
    else
      await this.events.appendWith(id, effects.events, async (stored) => {
        tx = await commit(stored);
      });
    this.journal.end(tx!);
  }

  /** Resolves once no write with effects of request `id` is in flight (its record, events and entry all written). */
  private async settled(id: string): Promise<void> {
    const writing = this.inflight.get(id);
    if (writing !== undefined) await writing.catch(() => {});
  }

  /**
   * At start, before any other call: finishes the writes the journal holds unfinished whose record was written
   * (the commit), and drops the others (never acknowledged). Idempotent: a part already written is left as it is.
   */
  async recover(): Promise<void> {
    const intents = await this.journal.unsettled();
    for (const intent of intents) {
      const record = await this.table.read(intent.id);
      // Not committed (the record is older), or removed since: nothing of it is due.
      if (record === null || record.version < intent.v) continue;
      if (intent.session !== undefined) await this.sessions?.restore(intent.session);
      if (intent.events !== undefined) await this.events.recover(intent.id, intent.events);
      // A later update decided the registry after this one finished.
      if (intent.active !== undefined && record.version === intent.v)
        await this.active.restore(intent.id, intent.active);
    }
    await this.journal.clear();
  }

  async listByStatus(
    statuses: RequestStatus[],
    options: { durableOnly?: boolean; limit?: number } = {},
  ): Promise<RequestRecord[]> {
    if (!Array.isArray(statuses)) throw new FlowError("invalid-request", "statuses must be an array.");
    assertCount(options.limit, "limit");
    const wanted = new Set(statuses);
    const summaries = await this.loadSummaries();
    const matches = [...summaries.values()]
      .filter((s) => wanted.has(s.status) && (!options.durableOnly || s.durable))
      .sort((a, b) => compareStrings(a.createdAt, b.createdAt) || compareStrings(a.id, b.id));
    const page = options.limit === undefined ? matches : matches.slice(0, options.limit);
    const records = await mapLimit(page, 32, (s) => this.table.read(s.id));
    return records.filter((record): record is RequestRecord => record !== null);
  }

  async listBySession(
    sessionId: string,
    options: { limit: number; after?: { createdAt: string; id: string } },
  ): Promise<RequestRecord[]> {
    assertString(sessionId, "sessionId");
    assertJsonObject(options, "options");
    assertCount(options.limit, "limit");
    const after = options.after;
    if (after !== undefined) {
      assertJsonObject(after, "after");
      assertString(after.createdAt, "after.createdAt");
      assertString(after.id, "after.id");
    }
    const summaries = await this.loadSummaries();
    const ids = summaries.ofSession(sessionId, options.limit ?? Number.POSITIVE_INFINITY, after);
    const records = await mapLimit(ids, 32, (id) => this.table.read(id));
    return records.filter((record): record is RequestRecord => record !== null);
  }

  async removeByUser(userId: string, options: { orgId?: string } = {}): Promise<number> {
    assertString(userId, "userId");
    assertJsonObject(options, "options");
    if (options.orgId !== undefined) assertString(options.orgId, "orgId");
    const { orgId } = options;
    const summaries = await this.loadSummaries();
    let removed = 0;
    for (const id of summaries.ofUser(userId, orgId)) {
      const gone = await this.removeRequest(
        id,
        (record) => record.userId === userId && (orgId === undefined || record.orgId === orgId),
      );
      if (gone !== null) removed++;
    }
    // The journal may still hold the removed requests' events: none of their data stays behind.
    if (removed > 0) await this.journal.compact();
    return removed;
  }

  /**
   * Removes every request that ran in a session, each with its event log and active entry (the record last, so a
   * removal cut short leaves the record and a second call finds it). Counts the requests and their events.
   */
  async removeSession(sessionId: string): Promise<{ requests: number; events: number }> {
    const summaries = await this.loadSummaries();
    const removed = { requests: 0, events: 0 };
    for (const id of summaries.ofSession(sessionId, Number.POSITIVE_INFINITY)) {
      const events = await this.removeRequest(id, (record) => record.sessionId === sessionId, true);
      if (events === null) continue;
      removed.requests++;
      removed.events += events;
    }
    // The journal may still hold the removed requests' events and the session's record: none of it stays behind.
    await this.journal.compact();
    return removed;
  }

  appendEvent(event: NewRequestEvent, fence?: Fence): Promise<RequestEvent> {
    return this.events.append(event, fence);
  }

  async readEvents(requestId: string, afterSeq?: number, limit?: number): Promise<RequestEvent[]> {
    if (typeof requestId === "string") await this.settled(requestId);
    return this.events.read(requestId, afterSeq, limit);
  }

  subscribe(requestId: string, listener: (event: RequestEvent) => void): () => void {
    return this.events.subscribe(requestId, listener);
  }

  markActive(entry: ActiveRequestEntry): Promise<void> {
    return this.active.mark(entry);
  }

  clearActive(requestId: string): Promise<void> {
    return this.active.clear(requestId);
  }

  async listActive(filter: { userId?: string; flowIds?: string[] }): Promise<ActiveRequestEntry[]> {
    await Promise.all([...this.inflight.values()].map((writing) => writing.catch(() => {})));
    return this.active.list(filter);
  }

  async purgeFinished(policy: RetentionPolicy): Promise<number> {
    const { maxAgeMs, maxCount } = policy;
    if (maxAgeMs !== undefined && !(Number.isFinite(maxAgeMs) && maxAgeMs >= 0)) {
      throw new FlowError("invalid-request", "maxAgeMs must be a non-negative number of milliseconds.");
    }
    assertCount(maxCount, "maxCount", "invalid-request");
    const now = policy.now ?? Date.now();
    if (!Number.isFinite(now))
      throw new FlowError("invalid-request", "now must be a number of ms since epoch.");
    if (maxAgeMs === undefined && maxCount === undefined) return 0;

    const summaries = await this.loadSummaries();
    // Newest first by completion; a finished request without completedAt counts from its creation.
    const finished = [...summaries.values()]
      .filter((s) => TERMINAL.has(s.status))
      .map((s) => ({ id: s.id, at: Date.parse(s.completedAt ?? s.createdAt) }))
      .sort((a, b) => b.at - a.at || compareStrings(b.id, a.id));
    const doomed = finished.filter(
      (s, rank) =>
        (maxCount !== undefined && rank >= maxCount) || (maxAgeMs !== undefined && !(s.at >= now - maxAgeMs)),
    );
    let removed = 0;
    const touched = new Set<string>();
    for (const { id } of doomed) {
      let sessionId: string | undefined;
      // Re-checked under the lock: a request updated meanwhile is left for the next run.
      const gone = await this.removeRequest(id, (record) => {
        sessionId = record.sessionId;
        return TERMINAL.has(record.status);
      });
      if (gone === null) continue;
      removed++;
      touched.add(sessionId!);
    }
    if (removed > 0) await this.journal.compact();
    if (this.sessionsEmptied !== undefined && touched.size > 0) {
      for (const summary of summaries.values()) touched.delete(summary.sessionId);
      if (touched.size > 0) await this.sessionsEmptied([...touched]);
    }
    return removed;
  }

  async flush(): Promise<void> {
    await Promise.all([this.events.flush(), this.journal.flush()]);
  }

  /**
   * Removes request `id` with its event log and active entry (in that order, the record last), when it is stored
   * and `check` accepts it under the request's lock. Resolves the number of events its log held when `countEvents`
   * is set (else 0), or `null` when nothing was removed. No fenced write of the request runs meanwhile.
   */
  private removeRequest(
    id: string,
    check: (record: RequestRecord) => boolean,
    countEvents = false,
  ): Promise<number | null> {
    return this.fences.change(id, () =>
      this.mutex.run(`request:${id}`, async () => {
        const record = await this.table.read(id);
        if (record === null || !check(record)) return null;
        const events = await this.mutex.run(`events:${id}`, () => this.events.remove(id, countEvents));
        // Its active entry too: one left by a host that died would list forever.
        await this.active.clear(id);
        await this.table.remove(id);
        (await this.loadSummaries()).delete(id);
        return events;
      }),
    );
  }

  private async noteSummary(record: RequestRecord): Promise<void> {
    const loaded = this.summaries.started();
    if (!loaded) return;
    (await loaded).set(summaryOf(record));
  }

  private async loadSummaries(): Promise<RequestSummaries> {
    await this.ctx.ready();
    return this.summaries.get();
  }
}

function applyPatch(current: RequestRecord, patch: RequestPatch): RequestRecord {
  const next: RequestRecord = { ...current, version: current.version + 1 };
  if (patch.status !== undefined) next.status = patch.status;
  if (patch.output !== undefined) next.output = patch.output;
  if (patch.error !== undefined) next.error = patch.error;
  if (patch.metadata !== undefined) next.metadata = patch.metadata;
  if (patch.startedAt !== undefined) next.startedAt = patch.startedAt;
  if (patch.completedAt !== undefined) next.completedAt = patch.completedAt;
  if (patch.epoch !== undefined) next.epoch = patch.epoch;
  if (patch.claim === null) delete next.claim;
  else if (patch.claim !== undefined) next.claim = patch.claim;
  return next;
}
