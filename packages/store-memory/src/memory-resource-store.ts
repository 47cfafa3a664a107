import type { CasResult, JsonObject, ResourceStateRecord, ResourceStore, ScopeAddress } from "@flowrt/core";
import { SortedKeyIndex } from "./sorted-key-index.js";
import {
  admits,
  checkAddress,
  checkCondition,
  checkKey,
  checkObject,
  pageWindow,
  toJsonText,
} from "./validate.js";

interface KeyRow {
  /**
   * The state as JSON text; `null` is a tombstone: the key was deleted, and its version is kept so it
   * is never reused. Text rather than an object graph: copying in and out is one stringify/parse, and a
   * row is one small allocation, which keeps pages cheap when a scope holds a million keys.
   */
  state: string | null;
  version: number;
  createdAt: number;
  accessedAt: number;
}

/** Everything stored under one (scope, scope id, bucket). */
interface Bucket {
  rows: Map<string, KeyRow>;
  content: Map<string, string>;
  /** Live keys only; tombstones are left out so that list and count never see them. */
  index: SortedKeyIndex;
}

/** A JSON array is an unambiguous join: no scope id or bucket can make two addresses collide. */
const bucketId = (address: ScopeAddress) => JSON.stringify([address.scope, address.scopeId, address.bucket]);

export function createMemoryResourceStore(): ResourceStore {
  const buckets = new Map<string, Bucket>();

  // Reads never create a bucket, so probing unknown scopes does not grow memory.
  const find = (address: ScopeAddress): Bucket | undefined => {
    checkAddress(address);
    return buckets.get(bucketId(address));
  };
  const open = (address: ScopeAddress): Bucket => {
    checkAddress(address);
    const id = bucketId(address);
    let bucket = buckets.get(id);
    if (!bucket)
      buckets.set(id, (bucket = { rows: new Map(), content: new Map(), index: new SortedKeyIndex() }));
    return bucket;
  };
  const live = (bucket: Bucket | undefined, key: string): KeyRow | null => {
    const row = bucket?.rows.get(key);
    return row && row.state !== null ? row : null;
  };
  const toRecord = (key: string, row: KeyRow): ResourceStateRecord => ({
    key,
    state: JSON.parse(row.state!) as JsonObject,
    version: row.version,
    createdAt: row.createdAt,
    accessedAt: row.accessedAt,
  });
  const conflict = (row: KeyRow | null): CasResult<JsonObject> => ({
    ok: false,
    current: row ? { value: JSON.parse(row.state!) as JsonObject, version: row.version } : null,
  });

  return {
    async getState(address, key) {
      checkKey(key);
      const row = live(find(address), key);
      return row ? toRecord(key, row) : null;
    },

    async putState(address, key, state, condition) {
      checkKey(key);
      checkObject(state, "resource state");
      checkCondition(condition);
      const bucket = open(address);
      const row = bucket.rows.get(key);
      const current = row && row.state !== null ? row : null;
      if (!admits(condition, current)) return conflict(current);
      // Serialise before touching the row, so a value that is not JSON changes nothing.
      const value = toJsonText(state, "resource state");
      const now = Date.now();
      if (row) {
        if (!current) row.createdAt = now;
        row.state = value;
        row.version += 1;
        row.accessedAt = now;
      } else {
        bucket.rows.set(key, { state: value, version: 1, createdAt: now, accessedAt: now });
      }
      bucket.index.add(key);
      return { ok: true, version: row ? row.version : 1 };
    },

    async deleteState(address, key, condition) {
      checkKey(key);
      checkCondition(condition);
      const bucket = find(address);
      const row = live(bucket, key);
      if (!admits(condition, row)) return conflict(row);
      bucket?.content.delete(key);
      if (!bucket || !row) return { ok: true, version: bucket?.rows.get(key)?.version ?? 0 };
      row.state = null;
      row.version += 1;
      bucket.index.delete(key);
      return { ok: true, version: row.version };
    },

    async touch(address, key, at = Date.now()) {
      checkKey(key);
      if (!Number.isFinite(at))
        throw new TypeError("store-memory: touch time must be a finite number of ms.");
      const row = live(find(address), key);
      if (row) row.accessedAt = at;
    },

    async list(address, options = {}) {
      const { offset, limit } = pageWindow(options);
      const bucket = find(address);
      if (!bucket) return { items: [], total: 0 };
      const [start, end] = bucket.index.prefixRange(options.prefix ?? "");
      const from = start + offset;
      const keys = bucket.index.slice(from, Math.min(limit, end - from));
      return { items: keys.map((key) => toRecord(key, bucket.rows.get(key)!)), total: end - start };
    },

    async count(address, prefix = "") {
      return find(address)?.index.countPrefix(prefix) ?? 0;
    },

    async getContent(address, key) {
      checkKey(key);
      return find(address)?.content.get(key) ?? null;
    },

    async putContent(address, key, content) {
      checkKey(key);
      if (typeof content !== "string") throw new TypeError("store-memory: content must be a string.");
      open(address).content.set(key, content);
    },

    async deleteContent(address, key) {
      checkKey(key);
      find(address)?.content.delete(key);
    },
  };
}
