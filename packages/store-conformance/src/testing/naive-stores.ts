import type {
  ActiveRequestEntry,
  CasResult,
  Fence,
  FlowStores,
  JsonObject,
  JsonValue,
  NewRequestEvent,
  RequestEvent,
  RequestRecord,
  RequestUpdateEffects,
  ResourceStateRecord,
  ResourceStateTextRecord,
  ScheduleTickRecord,
  ScopeAddress,
  SessionRecord,
  Versioned,
  WriteCondition,
} from "@flowrt/core";
import { FlowError, TERMINAL_REQUEST_STATUSES } from "@flowrt/core";

/** Deliberate defects, each of which one conformance case must catch. */
export type NaiveStoreFlaw =
  | "aliases-stored-values"
  | "restarts-version-after-delete"
  | "throws-on-conflict"
  | "writes-on-lost-cas"
  | "wildcard-prefix"
  | "insertion-order-list"
  | "code-point-order"
  | "racy-compare-and-swap"
  | "racy-event-seq"
  | "ignores-bucket"
  | "empty-content-reads-null"
  | "keeps-content-on-delete"
  | "mutable-owner-fields"
  | "unguarded-request-update"
  | "purge-keeps-events"
  | "purge-keeps-active"
  | "unordered-active"
  | "purge-ties-by-lesser-id"
  | "unsubscribe-does-nothing"
  | "counts-tombstones"
  | "ignores-leaf"
  | "filters-leaf-after-paging"
  | "text-list-ignores-leaf"
  | "pretty-state-text"
  | "keeps-ephemeral-sessions"
  | "ignores-cap"
  | "counts-cap-before-waiting"
  | "cap-before-absent"
  | "cap-ignores-leaf"
  | "ignores-fences"
  | "fences-before-waiting"
  | "forgets-epoch-on-update"
  | "refuses-current-epoch"
  | "patch-replaces-metadata"
  | "patch-merges-deep"
  | "keeps-null-title"
  | "racy-metadata-patch"
  | "lists-deleting-sessions"
  | "lists-from-after-inclusive"
  | "remove-keeps-other-buckets"
  | "remove-keeps-tombstones"
  | "remove-keeps-events"
  | "remove-by-owner-id"
  | "remove-takes-children"
  | "session-requests-oldest-first"
  | "remove-by-user-ignores-org"
  | "remove-scope-keeps-resources"
  | "remove-scope-by-id-prefix"
  | "keyset-includes-after"
  | "keyset-narrows-total"
  | "claims-ticks-twice"
  | "racy-tick-claim"
  | "never-takes-over-ticks"
  | "fires-stale-epoch"
  | "refires-ticks"
  | "claims-superseded-ticks"
  | "effects-on-lost-cas"
  | "unnotified-update-events"
  | "update-seqs-from-one"
  | "keeps-active-on-null"
  | "session-despite-request"
  | "request-despite-session"
  | "unlisted-own-session"
  | "get-many-skips-missing"
  | "get-many-sorted";

/**
 * A deliberately simple store used only to test the suite itself: every operation scans. It
 * proves the suite is passable, and its flawed variants prove the suite can fail.
 */
export function createNaiveStores(flaw?: NaiveStoreFlaw): FlowStores {
  const textRecord = ({ state, ...rest }: ResourceStateRecord): ResourceStateTextRecord => ({
    ...rest,
    stateText: flaw === "pretty-state-text" ? JSON.stringify(state, null, 1) : JSON.stringify(state),
  });
  const copy = <T>(value: T): T => (flaw === "aliases-stored-values" ? value : structuredClone(value));
  const tick = () => new Promise((resolve) => setImmediate(resolve));
  const codePointCompare = (a: string, b: string) => {
    const x = [...a].map((c) => c.codePointAt(0)!);
    const y = [...b].map((c) => c.codePointAt(0)!);
    for (let i = 0; i < Math.min(x.length, y.length); i++) if (x[i] !== y[i]) return x[i]! - y[i]!;
    return x.length - y.length;
  };
  const keyCompare = (a: string, b: string) =>
    flaw === "code-point-order" ? codePointCompare(a, b) : a < b ? -1 : a > b ? 1 : 0;
  const matchesPrefix = (key: string, prefix: string) =>
    flaw === "wildcard-prefix"
      ? new RegExp(
          `^${prefix
            .replace(/[.+?^${}()|[\]\\]/g, "\\$&")
            .replace(/%|\*/g, ".*")
            .replace(/_/g, ".")}`,
        ).test(key)
      : key.startsWith(prefix);
  /** A `leaf` listing's rule: no "/" after the prefix's last "/". */
  const isLeaf = (key: string, prefix: string) => !key.includes("/", prefix.lastIndexOf("/") + 1);
  const sessions = new Map<string, SessionRecord>();
  const requests = new Map<string, RequestRecord>();
  const events = new Map<string, RequestEvent[]>();
  const listeners = new Map<string, Set<(event: RequestEvent) => void>>();
  const active = new Map<string, ActiveRequestEntry>();
  /** Sessions the `unlisted-own-session` flaw stores where only `get` finds them. */
  const unlisted = new Map<string, SessionRecord>();
  const scopeState = new Map<string, Versioned<JsonObject>>();
  type Row = { state: JsonObject | null; version: number; createdAt: number; accessedAt: number };
  const rows = new Map<string, Map<string, Row>>();
  const content = new Map<string, string>();

  /** Newest first: `createdAt` descending, then id descending. */
  const newestFirst = (a: { createdAt: string; id: string }, b: { createdAt: string; id: string }) =>
    a.createdAt === b.createdAt
      ? a.id < b.id
        ? 1
        : a.id > b.id
          ? -1
          : 0
      : a.createdAt < b.createdAt
        ? 1
        : -1;
  /** Whether `row` comes after `position` newest first (with the flawed store, or is at it). */
  const isAfter = (row: { createdAt: string; id: string }, position: { createdAt: string; id: string }) => {
    const order = newestFirst(position, row);
    return flaw === "lists-from-after-inclusive" ? order <= 0 : order < 0;
  };
  /** The addresses (as `addr` writes them) of one owner in every bucket. */
  const ownedBy = (scope: string, scopeId: string) => (key: string) => {
    const [s, id, bucket] = JSON.parse(key) as [string, string, string];
    if (flaw === "remove-keeps-other-buckets" && bucket !== "shared") return false;
    if (flaw === "remove-scope-by-id-prefix") return s === scope && id.startsWith(scopeId);
    return flaw === "remove-by-owner-id" ? id === scopeId : s === scope && id === scopeId;
  };
  /** Drops one owner's state, resources and content in every bucket, counting them. */
  const dropOwner = (scope: string, scopeId: string, keepResources = false) => {
    const owned = ownedBy(scope, scopeId);
    let states = 0;
    let resources = 0;
    let contents = 0;
    for (const key of [...scopeState.keys()]) {
      if (!owned(key)) continue;
      scopeState.delete(key);
      states++;
    }
    if (keepResources) return { states, resources, contents };
    for (const [key, map] of [...rows.entries()]) {
      if (!owned(key)) continue;
      if (flaw === "remove-keeps-tombstones") {
        for (const [k, row] of [...map.entries()]) {
          if (row.state === null) continue;
          map.delete(k);
          resources++;
        }
      } else {
        resources += map.size;
        rows.delete(key);
      }
    }
    for (const key of [...content.keys()]) {
      if (!owned(JSON.parse(key)[0])) continue;
      content.delete(key);
      contents++;
    }
    return { states, resources, contents };
  };
  /** Removes requests with their events and active entries; returns the events' count. */
  const dropRequests = (doomed: RequestRecord[]) => {
    let removedEvents = 0;
    for (const r of doomed) {
      requests.delete(r.id);
      if (flaw !== "remove-keeps-events") {
        removedEvents += events.get(r.id)?.length ?? 0;
        events.delete(r.id);
      }
      active.delete(r.id);
    }
    return removedEvents;
  };

  /** An event as stored: JSON holds it (`toJSON` applied, `undefined` members dropped), as a read gives it back. */
  const storedEvent = (event: NewRequestEvent, seq: number): RequestEvent => {
    const data = flaw === "aliases-stored-values" ? event.data : JSON.parse(JSON.stringify(event.data ?? {}));
    return { ...copy(event), data, seq };
  };
  /** An update's effects: its active change, then its events with the next seqs, each told to listeners. */
  const applyEffects = (id: string, effects: RequestUpdateEffects) => {
    if (effects.active === null) {
      if (flaw !== "keeps-active-on-null") active.delete(id);
    } else if (effects.active !== undefined) active.set(id, copy(effects.active));
    const log = events.get(id) ?? [];
    events.set(id, log);
    const first = flaw === "update-seqs-from-one" ? 1 : log.length + 1;
    const stored = (effects.events ?? []).map((event, i) => storedEvent(event, first + i));
    log.push(...stored);
    if (flaw === "unnotified-update-events") return;
    for (const event of stored) for (const listener of listeners.get(id) ?? []) listener(copy(event));
  };

  const addr = (a: ScopeAddress) =>
    JSON.stringify([a.scope, a.scopeId, flaw === "ignores-bucket" ? "" : a.bucket]);
  const bucketRows = (a: ScopeAddress) => {
    let map = rows.get(addr(a));
    if (!map) rows.set(addr(a), (map = new Map()));
    return map;
  };
  const admits = (condition: WriteCondition, live: { version: number } | null) =>
    condition.type === "any" ||
    (condition.type === "absent" ? live === null : live !== null && live.version === condition.version);
  const listed = (key: string, row: Row, prefix: string, leaf: boolean) =>
    (row.state !== null || flaw === "counts-tombstones") &&
    matchesPrefix(key, prefix) &&
    (!leaf || isLeaf(key, prefix));
  const record = (key: string, row: Row): ResourceStateRecord => ({
    key,
    state: copy(row.state!),
    version: row.version,
    createdAt: row.createdAt,
    accessedAt: row.accessedAt,
  });
  const liveOf = (row: Row | undefined) => (row && row.state !== null ? row : null);
  /**
   * Refuses a write whose fence is stale or names no stored request. True when the flawed store then waits before
   * writing (`fences-before-waiting`): a claim can land between its check and its write.
   */
  const refusesStale = (fence: Fence | undefined): boolean => {
    if (fence === undefined || flaw === "ignores-fences") return false;
    const request = requests.get(fence.requestId);
    const stored = request?.epoch ?? 0;
    const stale = flaw === "refuses-current-epoch" ? stored >= fence.epoch : stored > fence.epoch;
    if (request === undefined || stale) {
      throw new FlowError(
        "lease-lost",
        `naive: the write of request "${fence.requestId}" under epoch ${fence.epoch} was refused (stored epoch ${String(request?.epoch)}).`,
      );
    }
    return flaw === "fences-before-waiting";
  };

  /** Ticks by schedule (`[flowId, schedule]`), in the order they were first claimed. */
  const ticks = new Map<string, ScheduleTickRecord[]>();
  const ticksOf = (flowId: string, schedule: string) => {
    const key = JSON.stringify([flowId, schedule]);
    let list = ticks.get(key);
    if (list === undefined) ticks.set(key, (list = []));
    return list;
  };
  const newestTick = (list: ScheduleTickRecord[]) =>
    list.reduce<ScheduleTickRecord | undefined>(
      (a, t) => (a === undefined || t.at > a.at ? t : a),
      undefined,
    );

  return {
    kind: "naive",
    crossProcess: false,
    async close() {},
    schedules: {
      async claimTick(tick, claim, now) {
        const list = ticksOf(tick.flowId, tick.schedule);
        const stored = list.find((t) => t.at === tick.at);
        // The racy variant reads, then waits, then writes what it read: two claims in that window both land.
        if (flaw === "racy-tick-claim") await new Promise((resolve) => setImmediate(resolve));
        if (stored === undefined || flaw === "claims-ticks-twice") {
          const newest = newestTick(list);
          if (flaw !== "claims-superseded-ticks" && newest !== undefined && newest.at > tick.at)
            return { ok: false, current: structuredClone(newest) };
          const record: ScheduleTickRecord = {
            ...tick,
            claim: { ...claim },
            epoch: (stored?.epoch ?? 0) + 1,
          };
          if (stored === undefined) list.push(record);
          else Object.assign(stored, record);
          return { ok: true, record: structuredClone(record) };
        }
        const expired = stored.claim.until <= now && flaw !== "never-takes-over-ticks";
        if (stored.requestId !== undefined || !expired)
          return { ok: false, current: structuredClone(stored) };
        stored.claim = { ...claim };
        stored.epoch += 1;
        return { ok: true, record: structuredClone(stored) };
      },
      async fireTick(tick, epoch, requestId) {
        const stored = ticksOf(tick.flowId, tick.schedule).find((t) => t.at === tick.at);
        const stale =
          stored === undefined ||
          (stored.epoch !== epoch && flaw !== "fires-stale-epoch") ||
          (stored.requestId !== undefined && flaw !== "refires-ticks");
        if (stale)
          throw new FlowError(
            "lease-lost",
            `naive: the fire of tick ${tick.at} under epoch ${epoch} was refused.`,
          );
        stored.requestId = requestId;
      },
      async latestTick(flowId, schedule) {
        const newest = newestTick(ticksOf(flowId, schedule));
        return newest === undefined ? null : structuredClone(newest);
      },
    },
    sessions: {
      async create(session) {
        if (sessions.has(session.id)) return false;
        sessions.set(session.id, copy(session));
        return true;
      },
      async get(id) {
        const found = sessions.get(id) ?? unlisted.get(id);
        return found ? copy(found) : null;
      },
      async list(query) {
        const matching = [...sessions.values()]
          .filter(
            (s) =>
              (query.userId === undefined || s.userId === query.userId) &&
              (query.orgId === undefined || s.orgId === query.orgId) &&
              (query.flowIds === undefined || (s.flowId !== null && query.flowIds.includes(s.flowId))) &&
              (s.deleting !== true || flaw === "lists-deleting-sessions"),
          )
          .sort(newestFirst);
        const after = query.after;
        const from = after === undefined ? matching : matching.filter((s) => isAfter(s, after));
        const offset = query.offset ?? 0;
        const end = query.limit === undefined ? undefined : offset + query.limit;
        return { items: copy(from.slice(offset, end)), total: matching.length };
      },
      async listChildren(parentSessionId, filter) {
        return copy(
          [...sessions.values()]
            .filter(
              (s) =>
                s.parentSessionId === parentSessionId &&
                s.userId === filter.userId &&
                (filter.orgId === undefined || s.orgId === filter.orgId) &&
                (filter.tenantId === undefined || s.tenantId === filter.tenantId) &&
                (filter.flowId === undefined || s.flowId === filter.flowId),
            )
            .sort((a, b) =>
              a.createdAt === b.createdAt ? (a.id < b.id ? -1 : 1) : a.createdAt < b.createdAt ? -1 : 1,
            ),
        );
      },
      async update(id, patch) {
        const found = sessions.get(id);
        if (!found) return null;
        if (flaw === "mutable-owner-fields") Object.assign(found, copy(patch));
        if (patch.title === null && flaw !== "keeps-null-title") delete found.title;
        else if (patch.title !== undefined) found.title = patch.title as string;
        if (patch.metadata !== undefined) found.metadata = copy(patch.metadata);
        const merge = patch.metadataPatch;
        if (merge !== undefined) {
          // The flawed store merges into a copy read before an await: a concurrent patch is lost.
          const base = flaw === "racy-metadata-patch" ? copy(found.metadata) : undefined;
          if (base !== undefined) await tick();
          const metadata = flaw === "patch-replaces-metadata" ? {} : (base ?? found.metadata);
          for (const [key, value] of Object.entries(copy(merge))) {
            const existing = metadata[key];
            if (value === null) delete metadata[key];
            else if (
              flaw === "patch-merges-deep" &&
              typeof existing === "object" &&
              existing !== null &&
              typeof value === "object"
            )
              Object.assign(existing, value);
            else metadata[key] = value as JsonValue;
          }
          found.metadata = metadata;
        }
        return copy(found);
      },
      async markDeleting(id) {
        const found = sessions.get(id);
        if (!found) return false;
        found.deleting = true;
        return true;
      },
      async remove(id) {
        if (!sessions.has(id)) return null;
        const doomed = [...requests.values()].filter((r) => r.sessionId === id);
        const removedEvents = dropRequests(doomed);
        const scope = dropOwner("session", id);
        if (flaw === "remove-takes-children") {
          for (const child of [...sessions.values()])
            if (child.parentSessionId === id) sessions.delete(child.id);
        }
        sessions.delete(id);
        return { requests: doomed.length, events: removedEvents, ...scope };
      },
    },
    requests: {
      async create(request, options) {
        const session = options?.session;
        if (session !== undefined && session.id !== request.sessionId)
          throw new FlowError("invalid-request", "naive: the session is not the request's.");
        if (session !== undefined && flaw === "session-despite-request" && !sessions.has(session.id))
          sessions.set(session.id, copy(session));
        if (requests.has(request.id)) return false;
        if (session !== undefined && (sessions.has(session.id) || unlisted.has(session.id))) {
          if (flaw === "request-despite-session") requests.set(request.id, copy(request));
          return false;
        }
        if (session !== undefined)
          (flaw === "unlisted-own-session" ? unlisted : sessions).set(session.id, copy(session));
        requests.set(request.id, copy(request));
        return true;
      },
      async get(id) {
        const found = requests.get(id);
        return found ? copy(found) : null;
      },
      async update(id, expectedVersion, patch, effects): Promise<CasResult<RequestRecord>> {
        const found = requests.get(id);
        if (!found) return { ok: false, current: null };
        if (found.version !== expectedVersion && flaw !== "unguarded-request-update") {
          if (flaw === "effects-on-lost-cas" && effects !== undefined) applyEffects(id, effects);
          return { ok: false, current: { value: copy(found), version: found.version } };
        }
        const { claim, ...rest } = copy(patch);
        if (flaw === "forgets-epoch-on-update") delete rest.epoch;
        Object.assign(found, rest);
        if (claim === null) delete found.claim;
        else if (claim !== undefined) found.claim = claim;
        found.version += 1;
        if (effects !== undefined) applyEffects(id, effects);
        return { ok: true, version: found.version };
      },
      async listBySession(sessionId, options) {
        const after = options.after;
        const order =
          flaw === "session-requests-oldest-first"
            ? (a: RequestRecord, b: RequestRecord) => newestFirst(b, a)
            : newestFirst;
        return copy(
          [...requests.values()]
            .filter((r) => r.sessionId === sessionId && (after === undefined || isAfter(r, after)))
            .sort(order)
            .slice(0, options.limit),
        );
      },
      async removeByUser(userId, options = {}) {
        const orgId = flaw === "remove-by-user-ignores-org" ? undefined : options.orgId;
        const doomed = [...requests.values()].filter(
          (r) => r.userId === userId && (orgId === undefined || r.orgId === orgId),
        );
        dropRequests(doomed);
        return doomed.length;
      },
      async listByStatus(statuses, options = {}) {
        return copy(
          [...requests.values()]
            .filter((r) => statuses.includes(r.status) && (!options.durableOnly || r.durable))
            .sort((a, b) => (a.createdAt < b.createdAt ? -1 : a.createdAt > b.createdAt ? 1 : 0))
            .slice(0, options.limit),
        );
      },
      async appendEvent(event, fence) {
        if (refusesStale(fence)) await tick();
        const log = events.get(event.requestId) ?? [];
        events.set(event.requestId, log);
        const seq = log.length + 1;
        if (flaw === "racy-event-seq") await tick();
        const stored = storedEvent(event, seq);
        log.push(stored);
        for (const listener of listeners.get(event.requestId) ?? []) listener(copy(stored));
        return copy(stored);
      },
      async readEvents(requestId, afterSeq = 0, limit) {
        const after = (events.get(requestId) ?? []).filter((e) => e.seq > afterSeq);
        return copy(after.slice(0, limit));
      },
      subscribe(requestId, listener) {
        const set = listeners.get(requestId) ?? new Set();
        listeners.set(requestId, set);
        set.add(listener);
        return () => {
          if (flaw !== "unsubscribe-does-nothing") set.delete(listener);
        };
      },
      async markActive(entry) {
        active.set(entry.requestId, copy(entry));
      },
      async clearActive(requestId) {
        active.delete(requestId);
      },
      async listActive(filter) {
        const order = (a: ActiveRequestEntry, b: ActiveRequestEntry) =>
          a.startedAt !== b.startedAt
            ? a.startedAt < b.startedAt
              ? -1
              : 1
            : a.requestId < b.requestId
              ? -1
              : a.requestId > b.requestId
                ? 1
                : 0;
        return copy(
          [...active.values()]
            .filter(
              (e) =>
                (filter.userId === undefined || e.userId === filter.userId) &&
                (filter.flowIds === undefined || filter.flowIds.includes(e.flowId)),
            )
            .sort(flaw === "unordered-active" ? () => 0 : order),
        );
      },
      async purgeFinished(policy) {
        const now = policy.now ?? Date.now();
        const finished = [...requests.values()]
          .filter((r) => TERMINAL_REQUEST_STATUSES.includes(r.status))
          // Newest first; in one millisecond, the greater id first.
          .sort((a, b) => {
            const [x, y] = [a.completedAt ?? a.createdAt, b.completedAt ?? b.createdAt];
            const byId = a.id < b.id ? 1 : a.id > b.id ? -1 : 0;
            return x !== y ? (x < y ? 1 : -1) : flaw === "purge-ties-by-lesser-id" ? -byId : byId;
          });
        const doomed = finished.filter(
          (r, i) =>
            (policy.maxCount !== undefined && i >= policy.maxCount) ||
            (policy.maxAgeMs !== undefined &&
              Date.parse(r.completedAt ?? r.createdAt) < now - policy.maxAgeMs),
        );
        for (const r of doomed) {
          requests.delete(r.id);
          if (flaw !== "purge-keeps-events") events.delete(r.id);
          if (flaw !== "purge-keeps-active") active.delete(r.id);
        }
        // An ephemeral session goes with its last stored request, and its session-scope data with it.
        for (const sessionId of new Set(doomed.map((r) => r.sessionId))) {
          if (flaw === "keeps-ephemeral-sessions") break;
          if (sessions.get(sessionId)?.metadata?.ephemeral !== true) continue;
          if ([...requests.values()].some((r) => r.sessionId === sessionId)) continue;
          sessions.delete(sessionId);
          const owned = (key: string) => key.startsWith(JSON.stringify(["session", sessionId]).slice(0, -1));
          for (const key of [...scopeState.keys()]) if (owned(key)) scopeState.delete(key);
          for (const key of [...rows.keys()]) if (owned(key)) rows.delete(key);
          for (const key of [...content.keys()]) if (owned(JSON.parse(key)[0])) content.delete(key);
        }
        return doomed.length;
      },
    },
    scopeState: {
      async removeScope(scope, scopeId) {
        return dropOwner(scope, scopeId, flaw === "remove-scope-keeps-resources");
      },
      async get(address) {
        const found = scopeState.get(addr(address));
        return found ? copy(found) : null;
      },
      async getMany(addresses) {
        const asked =
          flaw === "get-many-sorted"
            ? [...addresses].sort((a, b) => (addr(a) < addr(b) ? -1 : 1))
            : addresses;
        const answers = asked.map((address) => {
          const found = scopeState.get(addr(address));
          return found ? copy(found) : null;
        });
        return flaw === "get-many-skips-missing" ? answers.filter((answer) => answer !== null) : answers;
      },
      async put(address, value, condition, fence) {
        if (refusesStale(fence)) await tick();
        const live = scopeState.get(addr(address)) ?? null;
        if (!admits(condition, live)) {
          const current = live ? copy(live) : null;
          if (flaw === "writes-on-lost-cas" && live) live.value = copy(value);
          return { ok: false, current };
        }
        const version = (live?.version ?? 0) + 1;
        scopeState.set(addr(address), { value: copy(value), version });
        return { ok: true, version };
      },
    },
    resources: {
      async getState(address, key) {
        const row = liveOf(bucketRows(address).get(key));
        return row ? record(key, row) : null;
      },
      async putState(address, key, state, condition, fence) {
        if (refusesStale(fence)) await tick();
        const map = bucketRows(address);
        const row = map.get(key);
        const live = liveOf(row);
        const cap = condition.type === "absent" && flaw !== "ignores-cap" ? condition.cap : undefined;
        const capCount = (cap: { prefix: string; leaf?: boolean }) =>
          [...map.entries()].filter(([k, r]) =>
            listed(k, r, cap.prefix, cap.leaf === true && flaw !== "cap-ignores-leaf"),
          ).length;
        if (cap !== undefined && flaw === "cap-before-absent" && capCount(cap) >= cap.max)
          return { ok: false, current: null, full: true };
        // Counted, then an await before the write: every racing create finds the same room.
        const countedEarly = flaw === "counts-cap-before-waiting" && cap !== undefined ? capCount(cap) : null;
        if (flaw === "racy-compare-and-swap" || countedEarly !== null) await tick();
        if (!admits(condition, live)) {
          if (flaw === "throws-on-conflict") throw new Error("version conflict");
          const current = live ? { value: copy(live.state!), version: live.version } : null;
          if (flaw === "writes-on-lost-cas" && live) live.state = copy(state);
          return { ok: false, current };
        }
        if (cap !== undefined && (countedEarly ?? capCount(cap)) >= cap.max)
          return { ok: false, current: null, full: true };
        const now = Date.now();
        const version = (row?.version ?? 0) + 1;
        map.set(key, {
          state: copy(state),
          version,
          createdAt: live ? live.createdAt : now,
          accessedAt: now,
        });
        return { ok: true, version };
      },
      async deleteState(address, key, condition, fence) {
        if (refusesStale(fence)) await tick();
        const map = bucketRows(address);
        const row = map.get(key);
        const live = liveOf(row);
        if (!admits(condition, live)) {
          return { ok: false, current: live ? { value: copy(live.state!), version: live.version } : null };
        }
        // The live item's content goes with it; a stray one (no live state) only with an unconditional delete.
        if (flaw !== "keeps-content-on-delete" && (live || condition.type === "any"))
          content.delete(JSON.stringify([addr(address), key]));
        if (!live) return { ok: true, version: row?.version ?? 0 };
        if (flaw === "restarts-version-after-delete") {
          map.delete(key);
          return { ok: true, version: live.version + 1 };
        }
        live.state = null;
        live.version += 1;
        return { ok: true, version: live.version };
      },
      async touch(address, key, at = Date.now()) {
        const row = liveOf(bucketRows(address).get(key));
        if (row) row.accessedAt = at;
      },
      async list(address, options = {}) {
        const prefix = options.prefix ?? "";
        const leaf = options.leaf === true && flaw !== "ignores-leaf";
        const afterPaging = flaw === "filters-leaf-after-paging";
        const matching = [...bucketRows(address).entries()]
          .filter(([key, row]) => listed(key, row, prefix, leaf && !afterPaging))
          .sort(([a], [b]) => (flaw === "insertion-order-list" ? 0 : keyCompare(a, b)));
        const after = options.after;
        const from =
          after === undefined
            ? matching
            : matching.filter(([key]) => (flaw === "keyset-includes-after" ? key >= after : key > after));
        const offset = options.offset ?? 0;
        const end = options.limit === undefined ? undefined : offset + options.limit;
        return {
          total: flaw === "keyset-narrows-total" ? from.length : matching.length,
          items: from
            .slice(offset, end)
            .filter(([key]) => !leaf || !afterPaging || isLeaf(key, prefix))
            .map(([key, row]) => record(key, row)),
        };
      },
      async count(address, prefix = "", options = {}) {
        const leaf = options.leaf === true && flaw !== "ignores-leaf" && flaw !== "filters-leaf-after-paging";
        return [...bucketRows(address).entries()].filter(([key, row]) => listed(key, row, prefix, leaf))
          .length;
      },
      // The optional text reads, derived from the parsed ones.
      async getStateText(address, key) {
        const found = await this.getState(address, key);
        return found === null ? null : textRecord(found);
      },
      async listText(address, options = {}) {
        const page = await this.list(
          address,
          flaw === "text-list-ignores-leaf" ? { ...options, leaf: false } : options,
        );
        return { items: page.items.map(textRecord), total: page.total };
      },
      async getContent(address, key) {
        const body = content.get(JSON.stringify([addr(address), key]));
        return flaw === "empty-content-reads-null" ? body || null : (body ?? null);
      },
      async putContent(address, key, body, fence) {
        if (refusesStale(fence)) await tick();
        content.set(JSON.stringify([addr(address), key]), body);
      },
      async deleteContent(address, key, fence) {
        if (refusesStale(fence)) await tick();
        content.delete(JSON.stringify([addr(address), key]));
      },
    },
  };
}
