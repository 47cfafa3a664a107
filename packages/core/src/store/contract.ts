/**
 * The store contract: everything the engine persists goes through these interfaces. This file holds the
 * shared types (values, addresses, write conditions, fences), sessions and scope state; requests are in
 * `request-store.ts`, resources in `resource-store.ts`, and what a store factory returns in `flow-stores.ts`.
 * A store implementation imports them only through `@flowrt/core` and passes `describeStoreConformance` from
 * `@flowrt/store-conformance` unchanged.
 *
 * Rules every implementation keeps:
 * - Values are JSON. Reads return copies: mutating a returned object never changes what is stored,
 *   and mutating an object after writing it never changes what was stored.
 * - Versions start at 1 and grow by 1 on every successful write of a key, deletes included. A delete
 *   leaves a tombstone so a version is never reused; a create over a tombstone continues its count.
 * - A lost compare-and-swap is returned as data (`{ ok: false, current }`), never thrown. Stores throw
 *   only for I/O failures, and for the coded refusals the contract names (`lease-lost`, `request-finished`).
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
  /**
   * Set by {@link SessionStore.markDeleting}: a removal has begun and not finished. `get` and `listChildren` still
   * return the record (so a retried removal finds it and its children), `list` leaves it out, and the engine
   * answers it as not found on every route but a retried `DELETE`.
   */
  deleting?: true;
}

/** A session's place in the listing order (newest first: `createdAt` descending, then `id` descending). */
export interface SessionListPosition {
  createdAt: string;
  id: string;
}

export interface SessionListQuery {
  userId?: string;
  orgId?: string;
  /** Only sessions owned by one of these flow ids. */
  flowIds?: string[];
  /**
   * Keyset paging: only sessions after this position in the listing order (an older `createdAt`, or the same
   * `createdAt` and a smaller `id`). Costs O(log n + limit) at any depth, where `offset` walks the skipped rows.
   */
  after?: SessionListPosition;
  offset?: number;
  limit?: number;
}

export interface Page<T> {
  items: T[];
  /** Number of matching rows, ignoring offset, `after` and limit. */
  total: number;
}

/**
 * A session update. `title: null` removes the title. `metadata` replaces the whole object; `metadataPatch` is
 * merged into the stored object one level deep in the same atomic step (a key set to `null` is removed), so two
 * concurrent patches of different keys both land. Owner fields never change.
 */
export interface SessionPatch {
  title?: string | null;
  metadata?: JsonObject;
  metadataPatch?: { [key: string]: JsonValue | null };
}

/** What removing a session took away (see {@link SessionStore.remove}). */
export interface SessionRemoval {
  /** Request records that ran in the session (their event logs and active entries go with them). */
  requests: number;
  /** Events of those requests. */
  events: number;
  /** Session-scope state records (one per bucket). */
  states: number;
  /** Session-scope resource keys, live or tombstoned, in every bucket. */
  resources: number;
  /** Session-scope content rows in every bucket. */
  contents: number;
}

/** What removing a user's or org's scope took away (see {@link ScopeStateStore.removeScope}). */
export interface ScopeRemoval {
  states: number;
  resources: number;
  contents: number;
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
  /** Patch the mutable fields (see {@link SessionPatch}); `null` when there is no such session. */
  update(id: string, patch: SessionPatch): Promise<SessionRecord | null>;
  /**
   * The first step of a removal: marks the record `deleting: true` (see {@link SessionRecord.deleting}). False when
   * there is no such session. Idempotent.
   */
  markDeleting(id: string): Promise<boolean>;
  /**
   * Removes a session and everything stored under it: the requests that ran in it (with their event logs and
   * active entries), its session-scope state and its session-scope resources and content in every bucket, then
   * the record itself. `null` when there is no record. Children are not touched (the engine removes them first).
   * A store spanning processes does it in one transaction; otherwise the record goes last, so a removal cut short
   * leaves the record (marked `deleting` by the engine beforehand) and a second call finishes it.
   */
  remove(id: string): Promise<SessionRemoval | null>;
}

// ---------------------------------------------------------------------------------------------
// Scope state: the state record of a session, a user or an org (per isolation bucket)

export interface ScopeStateStore {
  get(address: ScopeAddress): Promise<Versioned<JsonObject> | null>;
  /** {@link get} for several addresses in one read: the answers in the same order (a run reads its scopes so). */
  getMany(addresses: readonly ScopeAddress[]): Promise<(Versioned<JsonObject> | null)[]>;
  /** A fenced write ({@link Fence}) is refused with `lease-lost` once a newer claim exists, storing nothing. */
  put(
    address: ScopeAddress,
    value: JsonObject,
    condition: WriteCondition,
    fence?: Fence,
  ): Promise<CasResult<JsonObject>>;
  /**
   * Removes the state records of one user or org (`scope` is `user` or `org`) in every bucket, together with its
   * resources and content in every bucket ({@link ResourceStore} rows of the same scope and id, tombstones
   * included). Counts what went; idempotent. For a session's scope use {@link SessionStore.remove}.
   */
  removeScope(scope: "user" | "org", scopeId: string): Promise<ScopeRemoval>;
}
