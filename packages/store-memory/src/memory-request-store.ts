import type {
  ActiveRequestEntry,
  RequestEvent,
  RequestRecord,
  RequestStatus,
  RequestStore,
  RetentionPolicy,
} from "@flowrt/core";
import { TERMINAL_REQUEST_STATUSES } from "@flowrt/core";

export type ListenerErrorHandler = (error: unknown, event: RequestEvent) => void;

const STATUSES: readonly RequestStatus[] = ["queued", "running", "completed", "failed", "aborted"];
const TERMINAL = new Set<RequestStatus>(TERMINAL_REQUEST_STATUSES);

const oldestFirst = (a: RequestRecord, b: RequestRecord) =>
  a.createdAt === b.createdAt ? (a.id < b.id ? -1 : a.id > b.id ? 1 : 0) : a.createdAt < b.createdAt ? -1 : 1;

/** When a finished request finished; one without `completedAt` counts from its creation. */
const finishedAt = (record: RequestRecord) => Date.parse(record.completedAt ?? record.createdAt);

function checkLimit(limit: number | undefined, what: string): number {
  if (limit === undefined) return Number.POSITIVE_INFINITY;
  if (!Number.isInteger(limit) || limit < 0) {
    throw new RangeError(`store-memory: ${what} must be a non-negative integer (got ${String(limit)}).`);
  }
  return limit;
}

/**
 * Requests, their event logs (an array per request: `seq` is the index plus one, so appends can
 * neither skip nor repeat one) and the active registry. Requests are also indexed by status so that
 * `listByStatus` and retention read only the statuses they need.
 */
export function createMemoryRequestStore(onListenerError: ListenerErrorHandler) {
  const records = new Map<string, RequestRecord>();
  const byStatus = new Map<RequestStatus, Set<string>>(STATUSES.map((status) => [status, new Set()]));
  const events = new Map<string, RequestEvent[]>();
  const listeners = new Map<string, Set<(event: RequestEvent) => void>>();
  const active = new Map<string, ActiveRequestEntry>();

  const statusSet = (status: RequestStatus) => {
    const set = byStatus.get(status);
    if (!set) throw new TypeError(`store-memory: unknown request status "${String(status)}".`);
    return set;
  };

  const store: RequestStore & { listenerCount(): number; clearListeners(): void } = {
    async create(record) {
      if (typeof record?.id !== "string")
        throw new TypeError("store-memory: a request record needs a string id.");
      const set = statusSet(record.status);
      if (records.has(record.id)) return false;
      records.set(record.id, structuredClone(record));
      set.add(record.id);
      return true;
    },

    async get(id) {
      const found = records.get(id);
      return found ? structuredClone(found) : null;
    },

    async update(id, expectedVersion, patch) {
      const found = records.get(id);
      if (!found) return { ok: false, current: null };
      if (found.version !== expectedVersion) {
        return { ok: false, current: { value: structuredClone(found), version: found.version } };
      }
      if (patch.status !== undefined) statusSet(patch.status);
      const { claim, ...fields } = structuredClone(patch);
      byStatus.get(found.status)!.delete(id);
      Object.assign(found, fields);
      if (claim === null) delete found.claim;
      else if (claim !== undefined) found.claim = claim;
      found.version += 1;
      byStatus.get(found.status)!.add(id);
      return { ok: true, version: found.version };
    },

    async listByStatus(statuses, options = {}) {
      const limit = checkLimit(options.limit, "limit");
      const matching: RequestRecord[] = [];
      for (const status of new Set(statuses)) {
        for (const id of statusSet(status)) {
          const record = records.get(id)!;
          if (!options.durableOnly || record.durable) matching.push(record);
        }
      }
      return structuredClone(matching.sort(oldestFirst).slice(0, limit));
    },

    async appendEvent(event) {
      if (typeof event?.requestId !== "string")
        throw new TypeError("store-memory: an event needs a string requestId.");
      let log = events.get(event.requestId);
      if (!log) events.set(event.requestId, (log = []));
      const stored: RequestEvent = { ...structuredClone(event), seq: log.length + 1 };
      log.push(stored);
      const subscribed = listeners.get(event.requestId);
      if (subscribed) {
        // A snapshot of the set: a listener that unsubscribes (or subscribes) mid-delivery is safe.
        for (const listener of [...subscribed]) {
          try {
            listener(structuredClone(stored));
          } catch (error) {
            onListenerError(error, structuredClone(stored));
          }
        }
      }
      return structuredClone(stored);
    },

    async readEvents(requestId, afterSeq = 0, limit) {
      const count = checkLimit(limit, "limit");
      const from = Math.max(0, Math.floor(afterSeq));
      const log = events.get(requestId) ?? [];
      return structuredClone(log.slice(from, from + count));
    },

    subscribe(requestId, listener) {
      let set = listeners.get(requestId);
      if (!set) listeners.set(requestId, (set = new Set()));
      // Each call gets its own token, so subscribing one function twice needs two unsubscribes.
      const wrapped = (event: RequestEvent) => listener(event);
      set.add(wrapped);
      return () => {
        const current = listeners.get(requestId);
        if (!current) return;
        current.delete(wrapped);
        if (current.size === 0) listeners.delete(requestId);
      };
    },

    async markActive(entry) {
      if (typeof entry?.requestId !== "string")
        throw new TypeError("store-memory: an active entry needs a requestId.");
      active.set(entry.requestId, structuredClone(entry));
    },

    async clearActive(requestId) {
      active.delete(requestId);
    },

    async listActive(filter) {
      const flowIds = filter.flowIds ? new Set(filter.flowIds) : undefined;
      const matching = [...active.values()].filter(
        (entry) =>
          (filter.userId === undefined || entry.userId === filter.userId) &&
          (flowIds === undefined || flowIds.has(entry.flowId)),
      );
      return structuredClone(matching);
    },

    async purgeFinished(policy: RetentionPolicy) {
      const maxCount = policy.maxCount === undefined ? undefined : checkLimit(policy.maxCount, "maxCount");
      if (policy.maxAgeMs !== undefined && !(policy.maxAgeMs >= 0)) {
        throw new RangeError(
          `store-memory: maxAgeMs must be a non-negative number (got ${String(policy.maxAgeMs)}).`,
        );
      }
      if (maxCount === undefined && policy.maxAgeMs === undefined) return 0;
      const cutoff = policy.maxAgeMs === undefined ? undefined : (policy.now ?? Date.now()) - policy.maxAgeMs;

      const finished: RequestRecord[] = [];
      for (const status of TERMINAL) for (const id of byStatus.get(status)!) finished.push(records.get(id)!);
      // Newest first, so the ones beyond maxCount are the tail.
      finished.sort((a, b) => finishedAt(b) - finishedAt(a) || (a.id < b.id ? -1 : 1));
      let removed = 0;
      for (const [i, record] of finished.entries()) {
        const tooMany = maxCount !== undefined && i >= maxCount;
        const tooOld = cutoff !== undefined && finishedAt(record) < cutoff;
        if (!tooMany && !tooOld) continue;
        records.delete(record.id);
        byStatus.get(record.status)!.delete(record.id);
        events.delete(record.id);
        active.delete(record.id);
        removed++;
      }
      return removed;
    },

    listenerCount() {
      let total = 0;
      for (const set of listeners.values()) total += set.size;
      return total;
    },

    clearListeners() {
      listeners.clear();
    },
  };
  return store;
}
