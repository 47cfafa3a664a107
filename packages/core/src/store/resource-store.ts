import type { CasResult, Fence, JsonObject, Page, ScopeAddress, WriteCondition } from "./contract.js";

/** The store contract's resources (see `contract.ts` for the rules every store keeps). */

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
  /**
   * Keyset paging: only keys after this one in key order (strictly greater). With `after`, a page costs
   * O(log n + limit) at any depth; combined with `offset`, the offset counts from there. `total` still counts every
   * key the prefix (and `leaf`) match.
   */
  after?: string;
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
