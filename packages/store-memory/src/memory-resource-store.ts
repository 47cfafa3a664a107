import type {
  CasResult,
  JsonObject,
  ListOptions,
  ResourceStateRecord,
  ResourceStateTextRecord,
  ResourceStore,
  ScopeAddress,
  ScopeKind,
} from "@flowrt/core";
import { createFenceGuard, type FenceGuard } from "./fence-guard.js";
import { checkJsonObject } from "./json-text.js";
import type { Row } from "./row.js";
import { RowIndex } from "./row-index.js";
import {
  admits,
  checkAddress,
  checkAfter,
  checkCondition,
  checkKey,
  checkPrefix,
  pageWindow,
  toJsonText,
} from "./validate.js";

/** Everything stored under one (scope, scope id, bucket). */
interface Bucket {
  /**
   * Every row, tombstones included (and rows that hold only content): point reads and writes go through
   * this map, never the index. Content lives on the row, so a key costs one map entry, not two.
   */
  rows: Map<string, Row>;
  /** Live rows only, in key order; tombstones are left out so that list and count never see them. */
  index: RowIndex;
  /**
   * The same live rows split by how many `/` their key holds, each part in key order. The keys a
   * `leaf` listing wants (`prefix` followed by no `/`) are exactly the keys with as many `/` as the
   * prefix that start with it, so they form one contiguous prefix range of one of these indexes.
   */
  leaves: Map<number, RowIndex>;
}

/** How many `/` a key holds: its depth, which picks its leaf index. */
function depthOf(key: string): number {
  let depth = 0;
  for (let at = key.indexOf("/"); at !== -1; at = key.indexOf("/", at + 1)) depth++;
  return depth;
}

export type MemoryResourceStore = ResourceStore & {
  /**
   * Drops every resource row of one owner (scope and scope id) in every bucket: live keys, tombstones and content.
   * Counts the keys with a state written (live or tombstoned) and the content bodies.
   */
  dropOwner(scope: ScopeKind, scopeId: string): { resources: number; contents: number };
};

/**
 * Resource state and content by address and key. `fenced` checks a fenced write against the requests of the
 * stores this one belongs to (by default there are none, so every fenced write is refused). Every write checks
 * its fence after its argument checks and writes with no await in between, so a refused write changes nothing
 * (no version, content, bucket or LRU time) and no claim lands between the check and the write.
 */
export function createMemoryResourceStore(
  fenced: FenceGuard = createFenceGuard(() => undefined),
): MemoryResourceStore {
  // scope → scope id → bucket name → bucket: nested maps, so no joined key is built per call and no
  // scope id or bucket name can make two addresses collide.
  const buckets = new Map<string, Map<string, Map<string, Bucket>>>();

  // Reads never create a bucket, so probing unknown scopes does not grow memory.
  const find = (address: ScopeAddress): Bucket | undefined => {
    checkAddress(address);
    return buckets.get(address.scope)?.get(address.scopeId)?.get(address.bucket);
  };
  const open = (address: ScopeAddress): Bucket => {
    checkAddress(address);
    let ids = buckets.get(address.scope);
    if (!ids) buckets.set(address.scope, (ids = new Map()));
    let names = ids.get(address.scopeId);
    if (!names) ids.set(address.scopeId, (names = new Map()));
    let bucket = names.get(address.bucket);
    if (!bucket) {
      bucket = { rows: new Map(), index: new RowIndex(), leaves: new Map() };
      names.set(address.bucket, bucket);
    }
    return bucket;
  };
  /** A new row for a key never written in `bucket`, holding nothing yet (the caller sets its content). */
  const addEmptyRow = (bucket: Bucket, key: string): Row => {
    const row: Row = {
      key,
      state: null,
      content: null,
      version: 0,
      createdAt: 0,
      accessedAt: 0,
      chunk: null,
      leafChunk: null,
    };
    bucket.rows.set(key, row);
    return row;
  };
  /** Forgets a row's content; a row whose state was never written is then nothing, and goes. */
  const dropContent = (bucket: Bucket, row: Row): void => {
    row.content = null;
    if (row.version === 0) bucket.rows.delete(row.key);
  };
  const index = (bucket: Bucket, prefix: string, leaf: boolean | undefined): RowIndex | undefined =>
    leaf === true ? bucket.leaves.get(depthOf(prefix)) : bucket.index;
  const addLive = (bucket: Bucket, row: Row): void => {
    bucket.index.add(row);
    const depth = depthOf(row.key);
    let leaves = bucket.leaves.get(depth);
    if (!leaves) bucket.leaves.set(depth, (leaves = new RowIndex(undefined, undefined, "leafChunk")));
    leaves.add(row);
  };
  const removeLive = (bucket: Bucket, row: Row): void => {
    bucket.index.delete(row);
    const depth = depthOf(row.key);
    const leaves = bucket.leaves.get(depth)!;
    leaves.delete(row);
    if (leaves.size === 0) bucket.leaves.delete(depth);
  };
  const live = (bucket: Bucket | undefined, key: string): Row | null => {
    const row = bucket?.rows.get(key);
    return row && row.state !== null ? row : null;
  };
  const toRecord = (row: Row): ResourceStateRecord => ({
    key: row.key,
    state: JSON.parse(row.state!) as JsonObject,
    version: row.version,
    createdAt: row.createdAt,
    accessedAt: row.accessedAt,
  });
  const toTextRecord = (row: Row): ResourceStateTextRecord => ({
    key: row.key,
    stateText: row.state!,
    version: row.version,
    createdAt: row.createdAt,
    accessedAt: row.accessedAt,
  });
  /** Where a page of `list`/`listText` lies: the index to read, its first rank and length, and the total. */
  const pageOf = (address: ScopeAddress, options: ListOptions) => {
    const { offset, limit } = pageWindow(options);
    const prefix = checkPrefix(options.prefix);
    const after = checkAfter(options.after);
    const bucket = find(address);
    const rows = bucket && index(bucket, prefix, options.leaf);
    if (!rows) return null;
    const [start, end] = rows.prefixRange(prefix);
    // Keys strictly greater than `after`: `after + "\0"` is the least string greater than it, so the keys
    // before that rank are exactly those up to and including `after`.
    const first = after === undefined ? start : Math.max(start, rows.rank(`${after}\u0000`));
    const from = first + offset;
    return { index: rows, from, count: Math.max(0, Math.min(limit, end - from)), total: end - start };
  };
  const conflict = (row: Row | null): CasResult<JsonObject> => ({
    ok: false,
    current: row ? { value: JSON.parse(row.state!) as JsonObject, version: row.version } : null,
  });

  return {
    dropOwner(scope, scopeId) {
      const ids = buckets.get(scope);
      const names = ids?.get(scopeId);
      let resources = 0;
      let contents = 0;
      if (names === undefined) return { resources, contents };
      for (const bucket of names.values()) {
        for (const row of bucket.rows.values()) {
          if (row.version > 0) resources++;
          if (row.content !== null) contents++;
        }
      }
      ids!.delete(scopeId);
      return { resources, contents };
    },
    async getState(address, key) {
      checkKey(key);
      const row = live(find(address), key);
      return row ? toRecord(row) : null;
    },

    // States are held as the text of JSON.stringify, so the text reads hand it out as it is.
    async getStateText(address, key) {
      checkKey(key);
      const row = live(find(address), key);
      return row ? toTextRecord(row) : null;
    },

    async putState(address, key, state, condition, fence) {
      checkKey(key);
      checkJsonObject(state, "resource state");
      checkCondition(condition);
      fenced(fence);
      const bucket = open(address);
      const row = bucket.rows.get(key);
      const current = row && row.state !== null ? row : null;
      if (!admits(condition, current)) return conflict(current);
      // The count and the write below run without an await between them: no other call can fill the room.
      if (condition.type === "absent" && condition.cap !== undefined) {
        const { prefix, leaf, max } = condition.cap;
        if ((index(bucket, prefix, leaf)?.countPrefix(prefix) ?? 0) >= max)
          return { ok: false, current: null, full: true };
      }
      // Serialise before touching the row, so a value that is not JSON changes nothing.
      const value = toJsonText(state, "resource state");
      const now = Date.now();
      if (!row) {
        const created: Row = {
          key,
          state: value,
          content: null,
          version: 1,
          createdAt: now,
          accessedAt: now,
          chunk: null,
          leafChunk: null,
        };
        bucket.rows.set(key, created);
        addLive(bucket, created);
        return { ok: true, version: 1 };
      }
      row.state = value;
      row.version += 1;
      row.accessedAt = now;
      if (current) {
        bucket.index.changed(row);
        bucket.leaves.get(depthOf(key))?.changed(row);
      } else {
        row.createdAt = now;
        addLive(bucket, row);
      }
      return { ok: true, version: row.version };
    },

    async deleteState(address, key, condition, fence) {
      checkKey(key);
      checkCondition(condition);
      fenced(fence);
      const bucket = find(address);
      const row = live(bucket, key);
      if (!admits(condition, row)) return conflict(row);
      const held = bucket?.rows.get(key);
      // The live item's content goes with it; a stray content row (no live state) only with an unconditional delete.
      if (held && (row || condition.type === "any")) dropContent(bucket!, held);
      if (!bucket || !row) return { ok: true, version: held?.version ?? 0 };
      removeLive(bucket, row);
      row.state = null;
      row.version += 1;
      return { ok: true, version: row.version };
    },

    async touch(address, key, at = Date.now()) {
      checkKey(key);
      if (!Number.isFinite(at))
        throw new TypeError("store-memory: touch time must be a finite number of ms.");
      const bucket = find(address);
      const row = live(bucket, key);
      if (bucket && row) {
        row.accessedAt = at;
        bucket.index.touched(row);
        bucket.leaves.get(depthOf(key))?.touched(row);
      }
    },

    async list(address, options = {}) {
      const page = pageOf(address, options);
      return page === null
        ? { items: [], total: 0 }
        : { items: page.index.records(page.from, page.count), total: page.total };
    },

    async listText(address, options = {}) {
      const page = pageOf(address, options);
      return page === null
        ? { items: [], total: 0 }
        : { items: page.index.rows(page.from, page.count).map(toTextRecord), total: page.total };
    },

    async count(address, prefix = "", options = {}) {
      checkPrefix(prefix);
      const bucket = find(address);
      return (bucket && index(bucket, prefix, options.leaf)?.countPrefix(prefix)) ?? 0;
    },

    async getContent(address, key) {
      checkKey(key);
      return find(address)?.rows.get(key)?.content ?? null;
    },

    async putContent(address, key, content, fence) {
      checkKey(key);
      if (typeof content !== "string") throw new TypeError("store-memory: content must be a string.");
      fenced(fence);
      const bucket = open(address);
      const row = bucket.rows.get(key) ?? addEmptyRow(bucket, key);
      row.content = content;
    },

    async deleteContent(address, key, fence) {
      checkKey(key);
      fenced(fence);
      const bucket = find(address);
      const row = bucket?.rows.get(key);
      if (row) dropContent(bucket!, row);
    },
  };
}
