import path from "node:path";
import type {
  CasResult,
  CountOptions,
  Fence,
  JsonObject,
  ListOptions,
  Page,
  ResourceStateRecord,
  ResourceStore,
  ScopeAddress,
  WriteCondition,
} from "@flowrt/core";
import { FlowError } from "@flowrt/core";
import type { FenceGate } from "./internal/fence-gate.js";
import { type FsContext, readJsonFile } from "./internal/fs-context.js";
import { KeyIndex } from "./internal/key-index.js";
import type { KeyedMutex } from "./internal/keyed-mutex.js";
import { mapLimit } from "./internal/map-limit.js";
import { addressId, fannedPath, nameOf } from "./internal/naming.js";
import {
  type ContentDoc,
  checkKey,
  contentIsCurrent,
  countFanned,
  currentOf,
  lifeOf,
  toRecord,
  type ValueDoc,
} from "./internal/resource-docs.js";
import type { ScopeBuckets } from "./internal/scope-buckets.js";
import {
  assertAddress,
  assertCondition,
  assertCount,
  assertFence,
  assertJsonObject,
  assertString,
  conditionHolds,
  jsonCopy,
} from "./internal/validate.js";

interface Bucket {
  dir: string;
  name: string;
  index: Promise<KeyIndex>;
  /** Operations in flight; a bucket is only unloaded when idle. */
  busy: number;
}

/** Loaded bucket indexes kept in memory before the least recently used idle ones are dropped. */
const MAX_LOADED_BUCKETS = 1000;

/**
 * Resource state and content. Layout per (scope, scopeId, bucket) under
 * `resources/<2 hex>/<bucket hash>/`: `index.log` (the live keys, see {@link KeyIndex}),
 * `state/<2 hex>/<key hash>.json` (value files, tombstones included) and
 * `content/<2 hex>/<key hash>.json` (content rows).
 */
export class FsResourceStore implements ResourceStore {
  private readonly buckets = new Map<string, Bucket>();

  constructor(
    private readonly ctx: FsContext,
    private readonly mutex: KeyedMutex,
    private readonly scopeBuckets: ScopeBuckets,
    private readonly fences: FenceGate,
  ) {}

  async getState(address: ScopeAddress, key: string): Promise<ResourceStateRecord | null> {
    assertAddress(address);
    assertString(key, "key");
    await this.ctx.ready();
    return toRecord(await this.readValue(this.bucketDir(address), key));
  }

  async putState(
    address: ScopeAddress,
    key: string,
    state: JsonObject,
    condition: WriteCondition,
    fence?: Fence,
  ): Promise<CasResult<JsonObject>> {
    assertAddress(address);
    assertString(key, "key");
    assertJsonObject(state, "state");
    assertCondition(condition);
    assertFence(fence);
    const copy = jsonCopy(state, "state");
    await this.scopeBuckets.register(address, "resources");
    const cap = condition.type === "absent" ? condition.cap : undefined;
    const write = (bucket: Bucket, index: KeyIndex) =>
      this.fences.write(fence, () => this.writeState(bucket, index, key, copy, condition));
    if (cap === undefined) return this.withKey(address, key, write);
    // Capped creates under one prefix take turns (the prefix's lock, then the key's: always in that order),
    // so the count each reads includes every capped create before it.
    const room = `cap:${nameOf(JSON.stringify([cap.prefix, cap.leaf === true]))}`;
    return this.withBucket(address, (bucket) =>
      this.mutex.run(`resource:${bucket.name}:${room}`, () => this.withKey(address, key, write)),
    );
  }

  /** The write of `putState`, under the key's lock (and a capped create's prefix lock). */
  private async writeState(
    bucket: Bucket,
    index: KeyIndex,
    key: string,
    copy: JsonObject,
    condition: WriteCondition,
  ): Promise<CasResult<JsonObject>> {
    const current = await this.readValue(bucket.dir, key);
    const liveVersion = current?.state ? current.version : null;
    if (!conditionHolds(condition, liveVersion)) return { ok: false, current: currentOf(current) };
    const cap = condition.type === "absent" ? condition.cap : undefined;
    if (cap !== undefined && index.select(cap.prefix, cap.leaf === true, 0, 0).total >= cap.max)
      return { ok: false, current: null, full: true };
    const now = Date.now();
    const next: ValueDoc = {
      key,
      version: (current?.version ?? 0) + 1,
      life: lifeOf(current),
      state: copy,
      createdAt: liveVersion === null ? now : current!.createdAt,
      accessedAt: now,
    };
    const write = () => this.ctx.writeAtomic(this.valueFile(bucket.dir, key), JSON.stringify(next));
    if (liveVersion === null) await index.transact(key, true, write);
    else await write();
    return { ok: true, version: next.version };
  }

  async deleteState(
    address: ScopeAddress,
    key: string,
    condition: WriteCondition,
    fence?: Fence,
  ): Promise<CasResult<JsonObject>> {
    assertAddress(address);
    assertString(key, "key");
    assertCondition(condition);
    assertFence(fence);
    return this.withKey(address, key, (bucket, index) =>
      this.fences.write(fence, () => this.removeState(bucket, index, key, condition)),
    );
  }

  /** The delete of `deleteState`, under the key's lock. */
  private async removeState(
    bucket: Bucket,
    index: KeyIndex,
    key: string,
    condition: WriteCondition,
  ): Promise<CasResult<JsonObject>> {
    const current = await this.readValue(bucket.dir, key);
    const liveVersion = current?.state ? current.version : null;
    if (!conditionHolds(condition, liveVersion)) return { ok: false, current: currentOf(current) };
    // Deleting what is not there changes nothing (a never-written key stays without a trace), except that an
    // unconditional delete also takes a stray content row (content written without state), as the other stores do.
    if (liveVersion === null) {
      if (condition.type === "any") await this.ctx.remove(this.contentFile(bucket.dir, key));
      return { ok: true, version: current?.version ?? 0 };
    }
    // The tombstone is the delete's one atomic step: it starts a new life, so the content row of the life it ends
    // is no longer read whether or not its removal below happens. A crash leaves the item whole or gone.
    const tombstone: ValueDoc = {
      key,
      version: liveVersion + 1,
      life: liveVersion + 1,
      state: null,
      createdAt: null,
      accessedAt: null,
    };
    await index.transact(key, false, async () => {
      await this.ctx.writeAtomic(this.valueFile(bucket.dir, key), JSON.stringify(tombstone));
      // Inside the transaction, so that a crash before the commit line has recovery remove what is left.
      await this.removeStaleContent(bucket.dir, key, tombstone).catch(() => {});
    });
    return { ok: true, version: tombstone.version };
  }

  async touch(address: ScopeAddress, key: string, at?: number): Promise<void> {
    assertAddress(address);
    assertString(key, "key");
    if (at !== undefined && !Number.isFinite(at)) {
      throw new FlowError("invalid-request", "touch: `at` must be a finite number of ms since epoch.");
    }
    await this.withKey(address, key, async (bucket) => {
      const current = await this.readValue(bucket.dir, key);
      if (!current?.state) return;
      const next: ValueDoc = { ...current, accessedAt: at ?? Date.now() };
      await this.ctx.writeAtomic(this.valueFile(bucket.dir, key), JSON.stringify(next));
    });
  }

  async list(address: ScopeAddress, options: ListOptions = {}): Promise<Page<ResourceStateRecord>> {
    assertAddress(address);
    const prefix = options.prefix ?? "";
    assertString(prefix, "prefix");
    assertCount(options.offset, "offset");
    assertCount(options.limit, "limit");
    if (options.after !== undefined) assertString(options.after, "after");
    return this.withBucket(address, async (bucket, index) => {
      const { keys, total } = index.select(
        prefix,
        options.leaf === true,
        options.offset,
        options.limit,
        options.after,
      );
      // Only the page's value files are read; the index alone gives order and total.
      const docs = await mapLimit(keys, 32, (key) => this.readValue(bucket.dir, key));
      const items = docs.map(toRecord).filter((record): record is ResourceStateRecord => record !== null);
      return { items, total };
    });
  }

  async count(address: ScopeAddress, prefix = "", options: CountOptions = {}): Promise<number> {
    assertAddress(address);
    assertString(prefix, "prefix");
    return this.withBucket(
      address,
      async (_bucket, index) => index.select(prefix, options.leaf === true, 0, 0).total,
    );
  }

  async getContent(address: ScopeAddress, key: string): Promise<string | null> {
    assertAddress(address);
    assertString(key, "key");
    // Through the bucket: its first use settles what a crash left (see KeyIndex.load).
    return this.withBucket(address, async (bucket) => {
      // Content first, then the value: lives only grow, so a content row whose life the value still has was the
      // key's content when it was read.
      const doc = await this.readContent(bucket.dir, key);
      if (doc === null) return null;
      return contentIsCurrent(doc, await this.readValue(bucket.dir, key)) ? doc.content : null;
    });
  }

  async putContent(address: ScopeAddress, key: string, content: string, fence?: Fence): Promise<void> {
    assertAddress(address);
    assertString(key, "key");
    assertString(content, "content");
    assertFence(fence);
    await this.scopeBuckets.register(address, "resources");
    await this.withKey(address, key, (bucket) =>
      this.fences.write(fence, async () => {
        const life = lifeOf(await this.readValue(bucket.dir, key));
        await this.ctx.writeAtomic(
          this.contentFile(bucket.dir, key),
          JSON.stringify({ key, life, content } satisfies ContentDoc),
        );
      }),
    );
  }

  async deleteContent(address: ScopeAddress, key: string, fence?: Fence): Promise<void> {
    assertAddress(address);
    assertString(key, "key");
    assertFence(fence);
    await this.withKey(address, key, (bucket) =>
      this.fences.write(fence, () => this.ctx.remove(this.contentFile(bucket.dir, key))),
    );
  }

  /**
   * Removes the bucket at `address` with everything in it (live keys, tombstones, content) in one atomic step
   * (see `FsContext.discardDir`), and counts its value files (keys written, live or tombstoned) and content rows.
   * An operation on it still in flight may write into it again; the engine removes the buckets of sessions,
   * users and orgs nothing runs in any more.
   */
  async dropBucket(address: ScopeAddress): Promise<{ resources: number; contents: number }> {
    await this.ctx.ready();
    const id = addressId(address);
    const bucket = this.buckets.get(id);
    if (bucket !== undefined) {
      // Its index log may still have commit lines queued: written first, so nothing writes after the removal.
      await flushIndex(bucket);
      this.buckets.delete(id);
    }
    const counts = { resources: 0, contents: 0 };
    await this.ctx.discardDir(this.bucketDir(address), async (moved) => {
      counts.resources = await countFanned(path.join(moved, "state"));
      counts.contents = await countFanned(path.join(moved, "content"));
    });
    return counts;
  }

  /** Waits for index log writes still queued (commit lines are written lazily). */
  async flush(): Promise<void> {
    for (const bucket of this.buckets.values()) await flushIndex(bucket);
  }

  private withKey<T>(
    address: ScopeAddress,
    key: string,
    work: (bucket: Bucket, index: KeyIndex) => Promise<T>,
  ) {
    return this.withBucket(address, (bucket, index) =>
      this.mutex.run(`resource:${bucket.name}:${nameOf(key)}`, () => work(bucket, index)),
    );
  }

  private async withBucket<T>(address: ScopeAddress, work: (bucket: Bucket, index: KeyIndex) => Promise<T>) {
    await this.ctx.ready();
    const bucket = this.bucket(address);
    bucket.busy++;
    try {
      return await work(bucket, await bucket.index);
    } finally {
      bucket.busy--;
    }
  }

  private bucketDir(address: ScopeAddress): string {
    return this.ctx.resolve("resources", fannedPath(nameOf(addressId(address)), ""));
  }

  private bucket(address: ScopeAddress): Bucket {
    const id = addressId(address);
    const existing = this.buckets.get(id);
    if (existing) {
      // Re-insert to keep the map in least-recently-used order.
      this.buckets.delete(id);
      this.buckets.set(id, existing);
      return existing;
    }
    const dir = this.bucketDir(address);
    // Settling a transaction a crash cut short: what the value file says, and a delete's content row gone.
    const index = KeyIndex.load(this.ctx, path.join(dir, "index.log"), async (key) => {
      const value = await this.readValue(dir, key);
      await this.removeStaleContent(dir, key, value);
      return Boolean(value?.state);
    });
    const bucket: Bucket = { dir, name: path.basename(dir), index, busy: 0 };
    // A failed load is retried by the next call rather than cached.
    index.catch(() => {
      if (this.buckets.get(id) === bucket) this.buckets.delete(id);
    });
    this.buckets.set(id, bucket);
    this.evictIdle();
    return bucket;
  }

  private evictIdle(): void {
    if (this.buckets.size <= MAX_LOADED_BUCKETS) return;
    for (const [id, bucket] of this.buckets) {
      if (this.buckets.size <= MAX_LOADED_BUCKETS) break;
      // An idle bucket has no transaction in flight (only lazily written commit lines, which
      // recovery does not need), so the next use can reload it from disk.
      if (bucket.busy === 0) this.buckets.delete(id);
    }
  }

  private valueFile(bucketDir: string, key: string): string {
    return path.join(bucketDir, "state", fannedPath(nameOf(key), ".json"));
  }

  private contentFile(bucketDir: string, key: string): string {
    return path.join(bucketDir, "content", fannedPath(nameOf(key), ".json"));
  }

  private async readContent(bucketDir: string, key: string): Promise<ContentDoc | null> {
    const file = this.contentFile(bucketDir, key);
    const doc = await readJsonFile<ContentDoc>(file);
    if (doc !== null) checkKey(doc.key, key, file);
    return doc;
  }

  /** Removes the key's content row when it belongs to an earlier life than `value`'s (a delete's leftover). */
  private async removeStaleContent(bucketDir: string, key: string, value: ValueDoc | null): Promise<void> {
    const doc = await this.readContent(bucketDir, key);
    if (doc !== null && !contentIsCurrent(doc, value))
      await this.ctx.remove(this.contentFile(bucketDir, key));
  }

  private async readValue(bucketDir: string, key: string): Promise<ValueDoc | null> {
    const file = this.valueFile(bucketDir, key);
    const doc = await readJsonFile<ValueDoc>(file);
    if (doc !== null) checkKey(doc.key, key, file);
    return doc;
  }
}

/** Waits for a bucket's queued index log writes; a bucket whose index failed to load has none. */
async function flushIndex(bucket: Bucket): Promise<void> {
  const index = await bucket.index.catch(() => null);
  await index?.flush().catch(() => {});
}
