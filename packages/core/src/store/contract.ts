/**
 * The store contract: everything the engine persists goes through these interfaces. A store
 * implementation imports only this module (via `@flowrt/core`) and passes `describeStoreConformance`
 * from `@flowrt/store-conformance` unchanged.
 *
 * Rules every implementation keeps:
 * - Values are JSON. Reads return copies: mutating a returned object never changes what is stored,
 *   and mutating an object after writing it never changes what was stored.
 * - Versions start at 1 and grow by 1 on every successful write of a key, deletes included. A delete
 *   leaves a tombstone so a version is never reused; a create over a tombstone continues its count.
 * - A lost compare-and-swap is returned as data (`{ ok: false, current }`), never thrown. Stores throw
 *   only for I/O failures.
 * - Listing by prefix returns keys in lexicographic UTF-16 code unit order (JavaScript's default
 *   sort; a UTF-8 `COLLATE "C"` index orders keys above U+FFFF differently, so a SQL store maps keys
 *   to keep this order) and costs O(log n + limit), not a scan, with or without `leaf`.
 *   A prefix is a plain string: `%`, `_` and `*` have no wildcard meaning.
 */

export type JsonPrimitive = string | number | boolean | null;
export type JsonValue = JsonPrimitive | JsonValue[] | { [key: string]: JsonValue };
export type JsonObject = { [key: string]: JsonValue };

export type ScopeKind = "session" | "user" | "org";

/**
 * Where a piece of scoped data lives. `bucket` separates isolated flow copies: the engine uses
 * {@link SHARED_BUCKET} for data shared by every flow of a user or org, and the flow instance id for
 * data of a flow that isolates its user/org state or a resource with `flowIsolation: true`.
 */
export interface ScopeAddress {
  scope: ScopeKind;
  /** The session id, user id or org id. */
  scopeId: string;
  /** Isolation bucket. */
  bucket: string;
}

/** The bucket shared by every flow on a host. */
export const SHARED_BUCKET = "shared";

/**
 * Room a create-only {@link ResourceStore.putState} needs: fewer than `max` live keys listed under `prefix`
 * (as {@link ResourceStore.count} counts them, `leaf` included) when the write is applied. A collection's
 * `maxInstances` is held with it, so the cap holds across every process sharing the store.
 * @example
 * // create items/c only while items/ holds fewer than 10 live direct children
 * putState(address, "items/c", state, { type: "absent", cap: { prefix: "items/", leaf: true, max: 10 } });
 */
export interface WriteCap {
  /** Plain-string key prefix, as {@link ListOptions.prefix}. */
  prefix: string;
  /** Count only the keys a `leaf` listing of `prefix` holds (see {@link ListOptions.leaf}). @default false */
  leaf?: boolean;
  /** The write lands only while fewer than this many live keys are counted (a non-negative integer). */
  max: number;
}

/** The condition a compare-and-swap write is applied under. */
export type WriteCondition =
  /**
   * Only when no live value exists (a tombstone counts as absent). With `cap` (read by
   * {@link ResourceStore.putState} only), also only while the cap's prefix holds fewer than `cap.max` live
   * keys: the check and the write are one atomic step against every other capped write of that store's
   * backing storage, so concurrent capped creates of different keys never together pass the cap.
   */
  | { type: "absent"; cap?: WriteCap }
  /** Only when the live value has exactly this version. */
  | { type: "version"; version: number }
  /** Unconditionally. */
  | { type: "any" };

export interface Versioned<T> {
  value: T;
  version: number;
}

export type CasResult<T> =
  | { ok: true; version: number }
  /**
   * `current` is the live value when the write lost, or `null` when there is none (absent or deleted).
   * `full: true` only when a capped create (see {@link WriteCap}) was refused for want of room: the key was
   * absent (`current: null`) and nothing was written. A key already live is refused as any create-only
   * write is, with `current` and without `full`, whatever the count.
   */
  | { ok: false; current: Versioned<T> | null; full?: true };

/**
 * The claim a durable run writes under: its request and the epoch of the claim it holds. A store refuses a write
 * that carries a fence once the request's stored {@link RequestRecord.epoch} is greater than `epoch` (a newer claim
 * exists: another host took the request over), or once the request no longer exists: it throws `FlowError`
 * `lease-lost` and stores nothing. The check is atomic with the write: on a store shared across processes, in the
 * same statement or transaction as the write, holding the request's row so that a claim cannot land between the
 * check and the write; in one process, with no await between the check and the write. A write without a fence
 * (anything outside a durable run) is not checked.
 */
export interface Fence {
  requestId: string;
  epoch: number;
}

// ---------------------------------------------------------------------------------------------
// Sessions

export interface SessionRecord {
  id: string;
  /** The owning flow instance id (the flow's `kind` unless made with `flow.instance({ id })`). */
  flowId: string | null;
  flowKind: string;
  userId: string;
  orgId?: string;
  tenantId?: string;
  parentSessionId?: string;
  /** The conversation this session was dispatched beneath, at any depth; its own id for a root. */
  rootSessionId: string;
  title?: string;
  metadata: JsonObject;
  /** ISO 8601. */
  createdAt: string;
}

export interface SessionListQuery {
  userId?: string;
  orgId?: string;
  /** Only sessions owned by one of these flow ids. */
  flowIds?: string[];
  offset?: number;
  limit?: number;
}

export interface Page<T> {
  items: T[];
  /** Number of matching rows, ignoring offset and limit. */
  total: number;
}

export interface SessionStore {
  /** Create-only. Returns false when a session with this id already exists (nothing is changed). */
  create(session: SessionRecord): Promise<boolean>;
  get(id: string): Promise<SessionRecord | null>;
  /** Newest first (by `createdAt`, then id). */
  list(query: SessionListQuery): Promise<Page<SessionRecord>>;
  /** Direct children of `parentSessionId`, oldest first, narrowed by the owner fields given. */
  listChildren(
    parentSessionId: string,
    filter: { userId: string; orgId?: string; tenantId?: string; flowId?: string | null },
  ): Promise<SessionRecord[]>;
  /** Patch the mutable fields (title, metadata). Owner fields never change. */
  update(id: string, patch: { title?: string; metadata?: JsonObject }): Promise<SessionRecord | null>;
}

// ---------------------------------------------------------------------------------------------
// Requests, their event log and the active-request registry

export type RequestStatus = "queued" | "running" | "completed" | "failed" | "aborted";

export const TERMINAL_REQUEST_STATUSES: readonly RequestStatus[] = ["completed", "failed", "aborted"];

export interface RequestError {
  code: string;
  message: string;
  retryable?: boolean;
}

export interface RequestRecord {
  id: string;
  sessionId: string;
  flowId: string;
  flowKind: string;
  /** Action name, or `webhook:<provider>:<eventType>` for webhook runs. */
  action: string;
  userId: string;
  orgId?: string;
  status: RequestStatus;
  input: JsonValue;
  output?: JsonValue;
  error?: RequestError;
  /** `metadata.webhook.deliveryId` for webhook runs; `metadata.origin` is `action`, `webhook`, `retry`, or a custom source. */
  metadata: JsonObject;
  durable: boolean;
  /** Host currently running it, and until when its claim holds (ms since epoch). */
  claim?: { hostId: string; until: number };
  /**
   * The epoch of the request's latest claim: absent (0) before any, and one more with every claim (a take-over
   * included). Writes made under a claim carry its epoch ({@link Fence}); a store refuses them once this is
   * greater. It stays when the claim is released, so a stale run stays refused after the request finished.
   */
  epoch?: number;
  /** Grows by 1 on every update; guards status transitions. Starts at 1. */
  version: number;
  createdAt: string;
  startedAt?: string;
  completedAt?: string;
}

/** Fields a request update may change; `claim: null` releases the claim. */
export interface RequestPatch {
  status?: RequestStatus;
  output?: JsonValue;
  error?: RequestError;
  metadata?: JsonObject;
  claim?: { hostId: string; until: number } | null;
  /** The epoch of a new claim: the stored epoch plus one (see {@link RequestRecord.epoch}). */
  epoch?: number;
  startedAt?: string;
  completedAt?: string;
}

/** A persisted stream event. `seq` is assigned by the store: per request, from 1, gap-free. */
export interface RequestEvent {
  seq: number;
  type: string;
  requestId: string;
  /** ISO 8601. */
  at: string;
  data: JsonObject;
}

export type NewRequestEvent = Omit<RequestEvent, "seq">;

export interface ActiveRequestEntry {
  requestId: string;
  sessionId: string;
  flowId: string;
  userId: string;
  orgId?: string;
  action: string;
  startedAt: string;
}

export interface RetentionPolicy {
  /** Remove finished requests whose `completedAt` (else `createdAt`) is older than this many ms. */
  maxAgeMs?: number;
  /** Keep at most this many finished requests (newest by `completedAt`). */
  maxCount?: number;
  /** "Now", injectable for tests. @default Date.now() */
  now?: number;
}

/**
 * How long finished requests, their event logs and the ephemeral sessions they leave empty are kept. The host
 * applies it (`createFlowHost({ retention })`) through {@link RequestStore.purgeFinished}; a store only keeps the
 * primitive.
 */
export interface RetentionOptions {
  /** Remove finished requests whose `completedAt` is older than this many milliseconds. @default 604_800_000 (7 days) */
  maxAgeMs?: number;
  /**
   * Keep at most this many finished requests (the newest by `completedAt`), across every host on the store;
   * `Infinity` keeps any number. @default 10_000
   */
  maxCount?: number;
  /** How often the purge runs. @default 600_000 (10 minutes) */
  intervalMs?: number;
}

export interface RequestStore {
  /** Create-only; false when the id exists. */
  create(record: RequestRecord): Promise<boolean>;
  get(id: string): Promise<RequestRecord | null>;
  /**
   * Applies `patch` only when the stored version equals `expectedVersion`; the version then grows by 1. A run's own
   * transitions need no {@link Fence}: every claim changes the version they are conditional on.
   */
  update(id: string, expectedVersion: number, patch: RequestPatch): Promise<CasResult<RequestRecord>>;
  /** Requests in one of `statuses`, oldest first; `durableOnly` narrows to durable ones. */
  listByStatus(
    statuses: RequestStatus[],
    options?: { durableOnly?: boolean; limit?: number },
  ): Promise<RequestRecord[]>;
  /**
   * Appends one event, assigning the next `seq`. Concurrent appends to one request never share or skip a seq.
   * A store whose {@link FlowStores.crossProcess} is true also refuses, with `FlowError` `request-finished`,
   * any event but a terminal one (`request.completed`, `request.failed`, `request.aborted`) for a request
   * whose stored status is terminal: a run that another process aborted cannot append after its end. (Within
   * one process the engine stops such a run itself.)
   */
  appendEvent(event: NewRequestEvent, fence?: Fence): Promise<RequestEvent>;
  /** Events with `seq > afterSeq`, in order. */
  readEvents(requestId: string, afterSeq?: number, limit?: number): Promise<RequestEvent[]>;
  /**
   * Live notification of appended events (this process, or every process sharing the store for
   * stores that span processes). Listeners get events in `seq` order; a consumer that must not miss
   * any reads the log after subscribing.
   */
  subscribe(requestId: string, listener: (event: RequestEvent) => void): () => void;

  markActive(entry: ActiveRequestEntry): Promise<void>;
  clearActive(requestId: string): Promise<void>;
  listActive(filter: { userId?: string; flowIds?: string[] }): Promise<ActiveRequestEntry[]>;

  /**
   * Removes finished requests (and their events) beyond the policy. Returns how many were removed.
   * A session whose metadata has `ephemeral: true` (the JSON value; the engine stores one per webhook
   * delivery without a `sessionId`) goes when this removes the last stored request that ran in it,
   * together with its session state and session-scope resources in every bucket. A session with a
   * request still stored, without the mark, or that never had a request stays.
   */
  purgeFinished(policy: RetentionPolicy): Promise<number>;
}

// ---------------------------------------------------------------------------------------------
// Scope state: the state record of a session, a user or an org (per isolation bucket)

export interface ScopeStateStore {
  get(address: ScopeAddress): Promise<Versioned<JsonObject> | null>;
  /** A fenced write ({@link Fence}) is refused with `lease-lost` once a newer claim exists, storing nothing. */
  put(
    address: ScopeAddress,
    value: JsonObject,
    condition: WriteCondition,
    fence?: Fence,
  ): Promise<CasResult<JsonObject>>;
}

// ---------------------------------------------------------------------------------------------
// Resources: versioned JSON state per key, content in separate rows

export interface ResourceStateRecord {
  key: string;
  state: JsonObject;
  version: number;
  /** ms since epoch of the write that created the live value (a re-create after delete is new). */
  createdAt: number;
  /** ms since epoch of the last write or {@link ResourceStore.touch}. */
  accessedAt: number;
}

/**
 * A {@link ResourceStateRecord} whose state is the JSON text the store holds, not parsed: the text of
 * `JSON.stringify(state)` (no whitespace, keys in the state's own order), so parsing it gives `state`.
 */
export interface ResourceStateTextRecord {
  key: string;
  stateText: string;
  version: number;
  createdAt: number;
  accessedAt: number;
}

export interface ListOptions {
  /** Plain-string key prefix. @default "" */
  prefix?: string;
  /**
   * Only the keys under `prefix` that have no `/` after the prefix's last `/`: the direct children
   * of the prefix's "folder" (everything up to and including that `/`, or `""` when the prefix has
   * none), narrowed to those starting with `prefix`. Deeper keys are left out of the items, `offset`
   * and `total` alike, so a page of `items/*` is exact and costs O(log n + limit) however many
   * `items/a/b` keys sit between its items in key order. Order stays UTF-16 code unit order. A key
   * equal to `prefix` is included when it has no `/` after that position (`items/` for `items/`).
   * @example
   * // keys: items/a, items/a/b, items/ab, items/b, items/b/c/d, other/x
   * list(address, { prefix: "items/", leaf: true });  // items/a, items/ab, items/b (total 3)
   * list(address, { prefix: "items/a", leaf: true }); // items/a, items/ab
   * list(address, { prefix: "items/a/", leaf: true }); // items/a/b
   * list(address, { prefix: "", leaf: true });         // keys without any `/`
   * @default false
   */
  leaf?: boolean;
  /** @default 0 */
  offset?: number;
  /** @default unbounded */
  limit?: number;
}

/** How {@link ResourceStore.count} narrows the keys under its prefix. */
export interface CountOptions {
  /**
   * Count only the keys {@link ListOptions.leaf} would list: those with no `/` after the prefix's
   * last `/`. Costs at most a walk of an index range of the counted keys, never a read of values.
   * @default false
   */
  leaf?: boolean;
}

export interface ResourceStore {
  getState(address: ScopeAddress, key: string): Promise<ResourceStateRecord | null>;
  /**
   * Compare-and-swap write of a key's state; versions grow by 1 from the last version, tombstones included.
   * An `absent` condition with a `cap` creates the key only while the cap's prefix has room: a refusal for
   * the cap answers `{ ok: false, current: null, full: true }` and changes nothing. A store whose
   * {@link FlowStores.crossProcess} is true holds the cap across processes; the others across every caller
   * of the one instance.
   */
  putState(
    address: ScopeAddress,
    key: string,
    state: JsonObject,
    condition: WriteCondition,
    fence?: Fence,
  ): Promise<CasResult<JsonObject>>;
  /**
   * Deletes the live state (leaving a tombstone) and the key's content row. A missing key is a
   * successful no-op for `{ type: "any" }` and a failed CAS for a version condition.
   */
  deleteState(
    address: ScopeAddress,
    key: string,
    condition: WriteCondition,
    fence?: Fence,
  ): Promise<CasResult<JsonObject>>;
  /** Records a read for LRU eviction. No version change. */
  touch(address: ScopeAddress, key: string, at?: number): Promise<void>;
  /** Live keys under a prefix in key order, with their state; `leaf` narrows to one "folder" level. */
  list(address: ScopeAddress, options?: ListOptions): Promise<Page<ResourceStateRecord>>;
  /**
   * How many live keys start with `prefix` (the `total` of the same `list`).
   * @example count(address, "items/", { leaf: true }) // items/a and items/b, not items/a/b
   */
  count(address: ScopeAddress, prefix?: string, options?: CountOptions): Promise<number>;
  /**
   * Optional: {@link ResourceStore.getState} with the state as its JSON text. A store that keeps states
   * as text implements it to spare a parse where the text is all a caller needs (the engine answers
   * client reads of whole states with it); callers fall back to `getState` without it.
   */
  getStateText?(address: ScopeAddress, key: string): Promise<ResourceStateTextRecord | null>;
  /** Optional: {@link ResourceStore.list} with each state as its JSON text (see `getStateText`). */
  listText?(address: ScopeAddress, options?: ListOptions): Promise<Page<ResourceStateTextRecord>>;

  /** The stored body; `null` when there is no content row. An empty body reads `""`. */
  getContent(address: ScopeAddress, key: string): Promise<string | null>;
  putContent(address: ScopeAddress, key: string, content: string, fence?: Fence): Promise<void>;
  deleteContent(address: ScopeAddress, key: string, fence?: Fence): Promise<void>;
}

// ---------------------------------------------------------------------------------------------

/** What `createMemoryStores()`, `createFsStores()` and `createPostgresStores()` return. */
export interface FlowStores {
  /** A short name for logs, e.g. `memory`, `fs`, `postgres`. */
  readonly kind: string;
  readonly sessions: SessionStore;
  readonly requests: RequestStore;
  readonly scopeState: ScopeStateStore;
  readonly resources: ResourceStore;
  /**
   * Whether compare-and-swap and create-only writes hold across processes sharing the backing
   * storage (true for Postgres; false for the filesystem store, which guards within one instance).
   */
  readonly crossProcess: boolean;
  /**
   * Prepares the backing storage (e.g. runs migrations); idempotent and safe when several hosts call it
   * at once. `host.start()` calls it when present.
   */
  setup?(): Promise<void>;
  /**
   * The retention the application gave the store itself (its own `retention` option, kept for applications
   * written before the host owned retention). Stores do not purge by themselves: the host applies this when
   * `createFlowHost` is given no `retention` of its own; `false` turns purging off.
   */
  readonly retention?: RetentionOptions | false;
  /** Releases pools, timers and file handles. */
  close(): Promise<void>;
}
