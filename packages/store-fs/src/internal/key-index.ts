import { FlowError } from "@flowrt/core";
import { AppendLog, readJsonLines } from "./append-log.js";
import type { FsContext } from "./fs-context.js";
import { SortedKeys } from "./sorted-keys.js";

/**
 * One line of an index log:
 * - `{ k, l }` sets the key live (`l: true`) or not (compacted form and recovery results);
 * - `{ i, k, l }` is the intent of transaction `i` to make the key live or not, fsynced before the
 *   value file is written;
 * - `{ c }` says transaction `c` finished (its value file is written).
 */
type IndexLine = { k: string; l: boolean; i?: number } | { c: number };

/** Compact once the log holds this many lines more than twice the live keys. */
const COMPACT_SLACK = 1000;

/**
 * The live keys of one (scope, scopeId, bucket), kept in memory in key order and backed by an
 * append-only log, so listing and counting never read value files.
 *
 * Only writes that change whether a key is live touch the log (create, delete, re-create). Such a
 * write first logs and fsyncs an intent, then writes the value file, then logs a commit and
 * updates memory. On load, an intent without a commit is settled by reading that one key's value
 * file, so after a crash the index agrees with the value files: an acknowledged write is listed.
 */
export class KeyIndex {
  private readonly log: AppendLog;
  private keys = new SortedKeys();
  /**
   * The same keys split by how many `/` each holds. The keys a `leaf` listing wants (the prefix
   * followed by no `/`) are exactly the keys with as many `/` as the prefix that start with it: one
   * prefix range of one of these.
   */
  private byDepth = new Map<number, SortedKeys>();
  private readonly pending = new Map<number, { key: string; live: boolean }>();
  private nextTx = 1;
  private lines = 0;
  private compacting = false;

  private constructor(
    private readonly ctx: FsContext,
    private readonly file: string,
    private readonly isLiveOnDisk: (key: string) => Promise<boolean>,
  ) {
    this.log = new AppendLog(ctx, file);
  }

  /** Replays the log (repairing a torn last line) and settles unfinished transactions. */
  static async load(
    ctx: FsContext,
    file: string,
    isLiveOnDisk: (key: string) => Promise<boolean>,
  ): Promise<KeyIndex> {
    const index = new KeyIndex(ctx, file, isLiveOnDisk);
    const lines = await readJsonLines<IndexLine>(file, { repair: true });
    const live = new Set<string>();
    const open = new Map<number, { key: string; live: boolean }>();
    for (const line of lines) {
      if (typeof line !== "object" || line === null) {
        throw new FlowError("store-error", `The index log ${file} holds an unknown line.`);
      }
      if ("c" in line) {
        index.nextTx = Math.max(index.nextTx, line.c + 1);
        const intent = open.get(line.c);
        if (intent) {
          open.delete(line.c);
          if (intent.live) live.add(intent.key);
          else live.delete(intent.key);
        }
      } else if (typeof line.k === "string") {
        if (typeof line.i === "number") {
          open.set(line.i, { key: line.k, live: line.l });
          index.nextTx = Math.max(index.nextTx, line.i + 1);
        } else if (line.l) live.add(line.k);
        else live.delete(line.k);
      } else {
        throw new FlowError("store-error", `The index log ${file} holds an unknown line.`);
      }
    }
    // Unfinished transactions were cut by a crash: the value file says how far each one got.
    for (const intent of [...open.entries()].sort((a, b) => a[0] - b[0]).map(([, v]) => v)) {
      if (await isLiveOnDisk(intent.key)) live.add(intent.key);
      else live.delete(intent.key);
    }
    index.keys = new SortedKeys(live);
    for (const key of live) index.leaves(key, true)!.add(key);
    index.lines = lines.length;
    if (open.size > 0) await index.log.exclusive(() => index.rewrite());
    return index;
  }

  get size(): number {
    return this.keys.size;
  }

  has(key: string): boolean {
    return this.keys.has(key);
  }

  /**
   * The live keys starting with `prefix` (for `leaf`, only those with no `/` after the prefix's last
   * `/`), in key order: the `[offset, offset + limit)` slice of them (of those strictly greater than
   * `after`, when given) and how many there are (all of them, whatever `after` says).
   */
  select(
    prefix: string,
    leaf: boolean,
    offset = 0,
    limit = Number.POSITIVE_INFINITY,
    after?: string,
  ): { keys: string[]; total: number } {
    const keys = leaf ? this.leaves(prefix, false) : this.keys;
    if (!keys) return { keys: [], total: 0 };
    const [start, end] = keys.range(prefix);
    const first = after === undefined ? start : Math.max(start, keys.rankAfter(after));
    const from = Math.min(end, first + offset);
    return { keys: keys.slice(from, Math.min(end, from + limit)), total: end - start };
  }

  /**
   * Runs `write` (which writes the key's value file) as a logged transaction that makes the key
   * live or not. Call it under the key's lock.
   */
  async transact<T>(key: string, live: boolean, write: () => Promise<T>): Promise<T> {
    const tx = this.nextTx++;
    this.pending.set(tx, { key, live });
    try {
      await this.log.append(JSON.stringify({ i: tx, k: key, l: live }));
    } catch (error) {
      this.pending.delete(tx);
      throw error;
    }
    let result: T;
    try {
      result = await write();
    } catch (error) {
      // The value file may or may not have been replaced; settle on what the disk says.
      this.pending.delete(tx);
      const onDisk = await this.isLiveOnDisk(key).catch(() => null);
      if (onDisk !== null) this.settle(key, onDisk);
      throw error;
    }
    this.pending.delete(tx);
    this.apply(key, live);
    // The commit need not be durable: without it, recovery reads the value file instead.
    this.log.append(JSON.stringify({ c: tx }), false).catch(() => {});
    this.lines += 2;
    this.maybeCompact();
    return result;
  }

  /** Waits for queued log writes (used by close()). */
  flush(): Promise<void> {
    return this.log.flush();
  }

  private settle(key: string, live: boolean): void {
    this.apply(key, live);
    this.log.append(JSON.stringify({ k: key, l: live })).catch(() => {});
    this.lines++;
  }

  private apply(key: string, live: boolean): void {
    if (live) {
      this.keys.add(key);
      this.leaves(key, true)!.add(key);
    } else {
      this.keys.delete(key);
      const depth = depthOf(key);
      const leaves = this.byDepth.get(depth);
      leaves?.delete(key);
      if (leaves?.size === 0) this.byDepth.delete(depth);
    }
  }

  /** The keys with as many `/` as `key`, made when `create` is set and there are none yet. */
  private leaves(key: string, create: boolean): SortedKeys | undefined {
    const depth = depthOf(key);
    let keys = this.byDepth.get(depth);
    if (!keys && create) this.byDepth.set(depth, (keys = new SortedKeys()));
    return keys;
  }

  private maybeCompact(): void {
    if (this.compacting || this.lines < 2 * this.keys.size + COMPACT_SLACK) return;
    this.compacting = true;
    this.log
      .exclusive(() => this.rewrite())
      .catch(() => {}) // the old log stays valid when a compaction fails
      .finally(() => (this.compacting = false));
  }

  /**
   * Replaces the log by the live keys plus the intents still in flight, atomically. Runs as an
   * exclusive job of the log, so no append interleaves with it.
   */
  private async rewrite(): Promise<void> {
    const parts: string[] = [];
    for (const key of this.keys.all()) parts.push(`${JSON.stringify({ k: key, l: true })}\n`);
    for (const [tx, intent] of this.pending)
      parts.push(`${JSON.stringify({ i: tx, k: intent.key, l: intent.live })}\n`);
    await this.ctx.writeAtomic(this.file, parts.join(""));
    this.lines = parts.length;
  }
}

/** How many `/` a key holds. */
function depthOf(key: string): number {
  let depth = 0;
  for (let at = key.indexOf("/"); at !== -1; at = key.indexOf("/", at + 1)) depth++;
  return depth;
}
