import type {
  ActiveRequestEntry,
  RequestRecord,
  RequestStatus,
  RequestStore,
  RequestUpdateEffects,
  RetentionPolicy,
  SessionRecord,
} from "@flowrt/core";
import { TERMINAL_REQUEST_STATUSES } from "@flowrt/core";
import { BySessionIndex } from "./by-session-index.js";
import { createFenceGuard } from "./fence-guard.js";
import { finishedToPurge } from "./finished-to-purge.js";
import { checkOptionalString, checkString } from "./json-text.js";
import { type ListenerErrorHandler, MemoryEventLog } from "./memory-event-log.js";
import type { PreparedSession, SessionCreation, SessionRetirement } from "./memory-session-store.js";
import { checkPatch, checkStatus, RequestRow } from "./request-row.js";

export type { ListenerErrorHandler } from "./memory-event-log.js";

const oldestFirst = (a: RequestRow, b: RequestRow) =>
  a.createdAt === b.createdAt ? (a.id < b.id ? -1 : a.id > b.id ? 1 : 0) : a.createdAt < b.createdAt ? -1 : 1;

function checkLimit(limit: number | undefined, what: string): number {
  if (limit === undefined) return Number.POSITIVE_INFINITY;
  if (!Number.isInteger(limit) || limit < 0) {
    throw new RangeError(`store-memory: ${what} must be a non-negative integer (got ${String(limit)}).`);
  }
  return limit;
}

/** A copy of an active entry made of its own strings, checked field by field. */
function copyEntry(entry: ActiveRequestEntry): ActiveRequestEntry {
  if (typeof entry !== "object" || entry === null || typeof entry.requestId !== "string") {
    throw new TypeError("store-memory: an active entry needs a requestId.");
  }
  checkString(entry.sessionId, "active entry sessionId");
  checkString(entry.flowId, "active entry flowId");
  checkString(entry.userId, "active entry userId");
  checkString(entry.action, "active entry action");
  checkString(entry.startedAt, "active entry startedAt");
  checkOptionalString(entry.orgId, "active entry orgId");
  const copy: ActiveRequestEntry = {
    requestId: entry.requestId,
    sessionId: entry.sessionId,
    flowId: entry.flowId,
    userId: entry.userId,
    action: entry.action,
    startedAt: entry.startedAt,
  };
  if (entry.orgId !== undefined) copy.orgId = entry.orgId;
  return copy;
}

/** Active entries hold only strings, so a spread is a full copy. */
const entryCopy = (entry: ActiveRequestEntry): ActiveRequestEntry => ({ ...entry });

/** The active change an update's effects make: an entry of request `id`, `null` to leave, `undefined` for none. */
function activeChange(id: string, effects: RequestUpdateEffects): ActiveRequestEntry | null | undefined {
  if (typeof effects !== "object" || effects === null) {
    throw new TypeError("store-memory: update effects must be an object.");
  }
  if (effects.active === undefined || effects.active === null) return effects.active;
  const entry = copyEntry(effects.active);
  if (entry.requestId !== id) {
    throw new TypeError(
      `store-memory: an update of request "${id}" carries the active entry of request "${entry.requestId}".`,
    );
  }
  return entry;
}

/** A request's own new session, checked against the request: it names the session the request runs in. */
function ownSession(
  row: RequestRow,
  session: SessionRecord,
  sessions: Partial<SessionCreation> | undefined,
): PreparedSession {
  if (sessions?.prepare === undefined) {
    throw new TypeError(
      "store-memory: this request store was made without a session store to create sessions in.",
    );
  }
  const prepared = sessions.prepare(session);
  if (prepared.id !== row.sessionId) {
    throw new TypeError(
      `store-memory: request "${row.id}" runs in session "${row.sessionId}", not in the session "${prepared.id}" given to create with it.`,
    );
  }
  return prepared;
}

/** Plain code-unit order (`<`), as the other stores compare ids and ISO times. */
const compareText = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

function checkPosition(after: { createdAt: string; id: string } | undefined): void {
  if (after === undefined) return;
  if (typeof after !== "object" || after === null) {
    throw new TypeError("store-memory: a request list position is { createdAt: string, id: string }.");
  }
  checkString(after.createdAt, "request list position createdAt");
  checkString(after.id, "request list position id");
}

export type MemoryRequestStore = RequestStore & {
  /** The stored epoch of a request (0 before its first claim), `undefined` when it is not stored: for fences. */
  epochOf(requestId: string): number | undefined;
  /**
   * Removes every request that ran in a session, with its event log and active entry, without telling the session
   * store (the session is going itself). Counts the requests and their events.
   */
  removeSession(sessionId: string): { requests: number; events: number };
  listenerCount(): number;
  clearListeners(): void;
};

/**
 * Requests (one {@link RequestRow} each), their event logs ({@link MemoryEventLog}) and the active
 * registry. Rows are also indexed by status (sets in the order rows entered the status), so that
 * `listByStatus` and retention read only the statuses they need and an update moves one entry; by session,
 * newest first, so that a page of `listBySession` starts with a binary search; and by user, for `removeByUser`.
 */
export function createMemoryRequestStore(
  onListenerError: ListenerErrorHandler,
  /**
   * Told of every request stored and removed, so an ephemeral session goes with its last request; with
   * {@link SessionCreation}, `create(record, { session })` stores the request's own session with it.
   */
  sessions?: SessionRetirement & Partial<SessionCreation>,
): MemoryRequestStore {
  const rows = new Map<string, RequestRow>();
  const byStatus = new Map<RequestStatus, Set<RequestRow>>([
    ["queued", new Set()],
    ["running", new Set()],
    ["completed", new Set()],
    ["failed", new Set()],
    ["aborted", new Set()],
  ]);
  const bySession = new BySessionIndex<RequestRow>();
  const byUser = new Map<string, Set<RequestRow>>();
  const events = new MemoryEventLog(onListenerError);
  const active = new Map<string, ActiveRequestEntry>();

  /** Takes a row out of every index, with its events and active entry; returns how many events it had. */
  const drop = (row: RequestRow): number => {
    rows.delete(row.id);
    byStatus.get(row.status)!.delete(row);
    bySession.delete(row);
    const ofUser = byUser.get(row.userId);
    ofUser?.delete(row);
    if (ofUser?.size === 0) byUser.delete(row.userId);
    active.delete(row.id);
    return events.delete(row.id);
  };
  const epochOf = (requestId: string): number | undefined => {
    const row = rows.get(requestId);
    return row === undefined ? undefined : (row.epoch ?? 0);
  };
  const fenced = createFenceGuard(epochOf);

  const store: MemoryRequestStore = {
    async create(record, options) {
      const row = new RequestRow(record);
      const session = options?.session === undefined ? undefined : ownSession(row, options.session, sessions);
      // Both checked before anything is written, then both written with no await in between.
      if (rows.has(row.id)) return false;
      if (session !== undefined && sessions!.has!(session.id)) return false;
      if (session !== undefined) sessions!.insert!(session);
      rows.set(row.id, row);
      byStatus.get(row.status)!.add(row);
      bySession.add(row);
      let ofUser = byUser.get(row.userId);
      if (ofUser === undefined) byUser.set(row.userId, (ofUser = new Set()));
      ofUser.add(row);
      sessions?.requestStored(row.sessionId);
      return true;
    },

    async get(id) {
      return rows.get(id)?.toRecord() ?? null;
    },

    async update(id, expectedVersion, patch, effects) {
      const row = rows.get(id);
      if (row === undefined) return { ok: false, current: null };
      if (row.version !== expectedVersion) {
        return { ok: false, current: { value: row.toRecord(), version: row.version } };
      }
      const texts = checkPatch(patch);
      // The effects are checked (an event's data stringified) before the patch lands: all of it, or nothing.
      const entry = effects === undefined ? undefined : activeChange(id, effects);
      const appended = effects?.events === undefined ? undefined : events.check(id, effects.events);
      const before = row.status;
      row.apply(patch, texts);
      if (row.status !== before) {
        byStatus.get(before)!.delete(row);
        byStatus.get(row.status)!.add(row);
      }
      if (entry === null) active.delete(id);
      else if (entry !== undefined) active.set(id, entry);
      // Stored with the patch, then told to listeners, who therefore see the new status.
      if (appended !== undefined) events.appendChecked(id, appended);
      return { ok: true, version: row.version };
    },

    async listBySession(sessionId, options) {
      if (typeof options !== "object" || options === null) {
        throw new TypeError("store-memory: listBySession needs options { limit, after? }.");
      }
      const limit = checkLimit(options.limit, "limit");
      checkPosition(options.after);
      const out: RequestRecord[] = [];
      if (limit === 0) return out;
      for (const row of bySession.from(sessionId, options.after)) {
        out.push(row.toRecord());
        if (out.length >= limit) break;
      }
      return out;
    },

    async removeByUser(userId, options = {}) {
      checkString(userId, "userId");
      checkOptionalString(options.orgId, "orgId");
      const doomed: RequestRow[] = [];
      for (const row of byUser.get(userId) ?? []) {
        if (options.orgId === undefined || row.orgId === options.orgId) doomed.push(row);
      }
      for (const row of doomed) {
        drop(row);
        // The session's count moves; an ephemeral session is retired by retention only.
        sessions?.requestRemoved(row.sessionId, false);
      }
      return doomed.length;
    },

    removeSession(sessionId) {
      if (!bySession.has(sessionId)) return { requests: 0, events: 0 };
      const doomed = [...bySession.from(sessionId)];
      let removedEvents = 0;
      for (const row of doomed) removedEvents += drop(row);
      return { requests: doomed.length, events: removedEvents };
    },

    async listByStatus(statuses, options = {}) {
      const limit = checkLimit(options.limit, "limit");
      const matching: RequestRow[] = [];
      for (const status of new Set(statuses)) {
        checkStatus(status);
        for (const row of byStatus.get(status)!) if (!options.durableOnly || row.durable) matching.push(row);
      }
      matching.sort(oldestFirst);
      const count = Math.min(limit, matching.length);
      const out = new Array(count);
      for (let i = 0; i < count; i++) out[i] = matching[i]!.toRecord();
      return out;
    },

    async appendEvent(event, fence) {
      // Checked, then appended with no await between: no claim can land in between.
      fenced(fence);
      return events.append(event);
    },

    async readEvents(requestId, afterSeq = 0, limit) {
      return events.read(requestId, afterSeq, checkLimit(limit, "limit"));
    },

    subscribe(requestId, listener) {
      return events.subscribe(requestId, listener);
    },

    async markActive(entry) {
      const copy = copyEntry(entry);
      active.set(copy.requestId, copy);
    },

    async clearActive(requestId) {
      active.delete(requestId);
    },

    async listActive(filter) {
      const flowIds = filter.flowIds ? new Set(filter.flowIds) : undefined;
      const out: ActiveRequestEntry[] = [];
      for (const entry of active.values()) {
        if (filter.userId !== undefined && entry.userId !== filter.userId) continue;
        if (flowIds !== undefined && !flowIds.has(entry.flowId)) continue;
        out.push(entryCopy(entry));
      }
      // Oldest first, as the other stores list them.
      return out.sort(
        (a, b) => compareText(a.startedAt, b.startedAt) || compareText(a.requestId, b.requestId),
      );
    },

    async purgeFinished(policy: RetentionPolicy) {
      const maxCount = policy.maxCount === undefined ? undefined : checkLimit(policy.maxCount, "maxCount");
      if (policy.maxAgeMs !== undefined && !(policy.maxAgeMs >= 0)) {
        throw new RangeError(
          `store-memory: maxAgeMs must be a non-negative number (got ${String(policy.maxAgeMs)}).`,
        );
      }
      if (maxCount === undefined && policy.maxAgeMs === undefined) return 0;
      const cutoff =
        policy.maxAgeMs === undefined
          ? Number.NEGATIVE_INFINITY
          : (policy.now ?? Date.now()) - policy.maxAgeMs;

      const finished: RequestRow[] = [];
      for (const status of TERMINAL_REQUEST_STATUSES)
        for (const row of byStatus.get(status)!) finished.push(row);
      const purged = finishedToPurge(finished, maxCount ?? Number.POSITIVE_INFINITY, cutoff);
      for (const row of purged) {
        drop(row);
        sessions?.requestRemoved(row.sessionId, true);
      }
      return purged.length;
    },

    epochOf,

    listenerCount() {
      return events.listenerCount();
    },

    clearListeners() {
      events.clearListeners();
    },
  };
  return store;
}
