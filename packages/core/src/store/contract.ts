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
