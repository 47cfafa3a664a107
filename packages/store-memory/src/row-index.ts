import type { ResourceStateRecord } from "@flowrt/core";
import { ChunkSnapshot, MAX_SNAPSHOT_CHARS } from "./chunk-snapshot.js";
import type { Chunk, ChunkSlot, Row } from "./row.js";

/**
 * Chunk length at which a chunk is split in two. Inserting costs a binary search over chunk maxima,
 * one within the chunk and a `splice` of at most this many elements; the chunk count stays small
 * enough that rebuilding the per-chunk count tree (on the first ranked read after a split) is cheap.
 * It also bounds what a page pays to lay out a chunk's snapshot (once after population, and again
 * after enough writes).
 */
const DEFAULT_MAX_CHUNK = 256;

/** Index of the first element of `sorted` that is not less than `key` (code-unit order). */
function lowerBound(sorted: readonly string[], key: string): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (sorted[mid]! < key) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * The smallest string greater than every string that starts with `prefix`, or `null` when there is
 * none (an empty prefix, or one made only of U+FFFF code units). Keys starting with `prefix` are
 * exactly the keys `k` with `prefix <= k < prefixEnd(prefix)`.
 */
export function prefixEnd(prefix: string): string | null {
  let i = prefix.length - 1;
  while (i >= 0 && prefix.charCodeAt(i) === 0xffff) i--;
  if (i < 0) return null;
  return prefix.slice(0, i) + String.fromCharCode(prefix.charCodeAt(i) + 1);
}

/**
 * The live rows of one bucket sorted by key (UTF-16 code-unit order), with positional access: a list
 * of sorted chunks plus a Fenwick tree of chunk lengths. Rank, insert and delete cost O(log n)
 * comparisons (plus a bounded `splice`), and reading `count` records from a rank costs
 * O(log n + count). Each row points back at its chunk, so a change to a row's value finds its chunk
 * without a search. Pages read chunk snapshots (see `chunk-snapshot.ts`), never the rows themselves.
 */
export class RowIndex {
  #chunks: Chunk[] = [];
  /** Last (greatest) key of each chunk, for the binary search that picks a chunk. */
  #maxes: string[] = [];
  /**
   * Fenwick tree over chunk lengths, 1-based; `null` after a split or merge changed the chunk list. It is
   * rebuilt by the next read that needs ranks, so inserts that split chunks (a collection filled without
   * being paged) never pay for rebuilding it.
   */
  #tree: number[] | null = null;
  #size = 0;
  readonly #maxChunk: number;
  /** A chunk this short is merged into a neighbour, so deletes cannot leave many near-empty chunks. */
  readonly #minChunk: number;
  readonly #maxSnapshotChars: number;
  /** The row field that points back at this index's chunk. */
  readonly #slot: ChunkSlot;

  /**
   * @param maxChunk Chunk length that triggers a split; small values exist for tests.
   * @param maxSnapshotChars Longest text a chunk snapshot lays out; small values exist for tests.
   * @param slot The row field this index keeps its chunk in; a row in two indexes needs two.
   */
  constructor(
    maxChunk = DEFAULT_MAX_CHUNK,
    maxSnapshotChars = MAX_SNAPSHOT_CHARS,
    slot: ChunkSlot = "chunk",
  ) {
    if (!Number.isInteger(maxChunk) || maxChunk < 4) throw new RangeError("maxChunk must be an integer >= 4");
    this.#maxChunk = maxChunk;
    this.#minChunk = maxChunk >>> 3;
    this.#maxSnapshotChars = maxSnapshotChars;
    this.#slot = slot;
  }

  get size(): number {
    return this.#size;
  }

  /** Inserts a live row whose key is not in the index yet. */
  add(row: Row): void {
    const key = row.key;
    if (this.#chunks.length === 0) {
      this.#chunks.push(this.#newChunk([key], [row], null));
      this.#maxes.push(key);
      this.#size = 1;
      this.#tree = null;
      return;
    }
    // A key beyond every chunk's maximum goes at the end of the last chunk.
    const c = Math.min(lowerBound(this.#maxes, key), this.#chunks.length - 1);
    const chunk = this.#chunks[c]!;
    const pos = lowerBound(chunk.keys, key);
    if (chunk.keys[pos] === key) throw new Error(`store-memory: index already holds ${JSON.stringify(key)}`);
    chunk.keys.splice(pos, 0, key);
    chunk.rows.splice(pos, 0, row);
    chunk.snapshot?.insert(pos, row);
    row[this.#slot] = chunk;
    this.#size++;
    if (chunk.keys.length > this.#maxChunk) {
      const half = chunk.keys.length >>> 1;
      const upper = this.#newChunk(
        chunk.keys.splice(half),
        chunk.rows.splice(half),
        chunk.snapshot?.split(half) ?? null,
      );
      this.#chunks.splice(c + 1, 0, upper);
      this.#maxes[c] = chunk.keys[half - 1]!;
      this.#maxes.splice(c + 1, 0, upper.keys[upper.keys.length - 1]!);
      this.#tree = null;
    } else {
      this.#maxes[c] = chunk.keys[chunk.keys.length - 1]!;
      this.#bump(c, 1);
    }
  }

  /** Removes a row that is in the index. */
  delete(row: Row): void {
    const c = lowerBound(this.#maxes, row.key);
    const chunk = this.#chunks[c];
    const pos = chunk ? lowerBound(chunk.keys, row.key) : -1;
    if (!chunk || chunk.rows[pos] !== row)
      throw new Error(`store-memory: index lacks ${JSON.stringify(row.key)}`);
    chunk.keys.splice(pos, 1);
    chunk.rows.splice(pos, 1);
    chunk.snapshot?.remove(pos);
    row[this.#slot] = null;
    this.#size--;
    if (chunk.keys.length === 0) {
      this.#chunks.splice(c, 1);
      this.#maxes.splice(c, 1);
      this.#tree = null;
      return;
    }
    this.#maxes[c] = chunk.keys[chunk.keys.length - 1]!;
    if (chunk.keys.length < this.#minChunk && this.#chunks.length > 1) this.#mergeWithNeighbour(c);
    else this.#bump(c, -1);
  }

  /** Call after a live row's state, version or timestamps changed, so pages do not read old values. */
  changed(row: Row): void {
    // A chunk no page has read has no snapshot, and then a write costs no search at all.
    const chunk = row[this.#slot];
    if (chunk?.snapshot) chunk.snapshot.update(lowerBound(chunk.keys, row.key), row);
  }

  /** Call after only a live row's accessedAt changed. */
  touched(row: Row): void {
    const chunk = row[this.#slot];
    if (chunk?.snapshot) chunk.snapshot.touch(lowerBound(chunk.keys, row.key), row.accessedAt);
  }

  /** How many keys are less than `key`. */
  rank(key: string): number {
    const c = lowerBound(this.#maxes, key);
    if (c >= this.#chunks.length) return this.#size;
    return this.#countBefore(c) + lowerBound(this.#chunks[c]!.keys, key);
  }

  /** How many keys start with `prefix`. */
  countPrefix(prefix: string): number {
    const [start, end] = this.prefixRange(prefix);
    return end - start;
  }

  /** The rank range `[start, end)` of the keys that start with `prefix`. */
  prefixRange(prefix: string): [number, number] {
    if (prefix === "") return [0, this.#size];
    const upper = prefixEnd(prefix);
    return [this.rank(prefix), upper === null ? this.#size : this.rank(upper)];
  }

  /** Up to `count` records in key order, starting at rank `start`. */
  records(start: number, count: number): ResourceStateRecord[] {
    const out: ResourceStateRecord[] = [];
    if (count <= 0 || start >= this.#size) return out;
    let [c, pos] = this.#locateRank(Math.max(0, start));
    while (out.length < count && c < this.#chunks.length) {
      const chunk = this.#chunks[c]!;
      const end = Math.min(chunk.keys.length, pos + count - out.length);
      chunk.snapshot ??= ChunkSnapshot.build(chunk.rows, this.#maxSnapshotChars);
      chunk.snapshot.read(chunk.keys, chunk.rows, pos, end, out);
      c++;
      pos = 0;
    }
    return out;
  }

  /** Up to `count` rows in key order, starting at rank `start` (for reads that want the stored text). */
  rows(start: number, count: number): Row[] {
    const out: Row[] = [];
    if (count <= 0 || start >= this.#size) return out;
    let [c, pos] = this.#locateRank(Math.max(0, start));
    while (out.length < count && c < this.#chunks.length) {
      const rows = this.#chunks[c]!.rows;
      const end = Math.min(rows.length, pos + count - out.length);
      for (let i = pos; i < end; i++) out.push(rows[i]!);
      c++;
      pos = 0;
    }
    return out;
  }

  /** Every live row in key order. */
  *[Symbol.iterator](): IterableIterator<Row> {
    for (const chunk of this.#chunks) yield* chunk.rows;
  }

  #mergeWithNeighbour(c: number): void {
    // Merge with a neighbour; split again if the result is too long.
    const left = c > 0 ? c - 1 : c;
    const [a, b] = [this.#chunks[left]!, this.#chunks[left + 1]!];
    const keys = a.keys.concat(b.keys);
    const rows = a.rows.concat(b.rows);
    const snapshot = a.snapshot && b.snapshot ? ChunkSnapshot.concat(a.snapshot, b.snapshot) : null;
    const half = keys.length >>> 1;
    let parts: Chunk[];
    if (keys.length > this.#maxChunk) {
      const upper = snapshot?.split(half) ?? null;
      parts = [
        this.#newChunk(keys.slice(0, half), rows.slice(0, half), snapshot),
        this.#newChunk(keys.slice(half), rows.slice(half), upper),
      ];
    } else {
      parts = [this.#newChunk(keys, rows, snapshot)];
    }
    this.#chunks.splice(left, 2, ...parts);
    this.#maxes.splice(left, 2, ...parts.map((part) => part.keys[part.keys.length - 1]!));
    this.#tree = null;
  }

  #newChunk(keys: string[], rows: Row[], snapshot: ChunkSnapshot | null): Chunk {
    const chunk: Chunk = { keys, rows, snapshot };
    for (const row of rows) row[this.#slot] = chunk;
    return chunk;
  }

  /** The Fenwick tree, rebuilt first when the chunk list changed since it was built. */
  #fenwick(): number[] {
    if (this.#tree !== null) return this.#tree;
    const n = this.#chunks.length;
    const tree = new Array<number>(n + 1).fill(0);
    for (let i = 1; i <= n; i++) {
      tree[i]! += this.#chunks[i - 1]!.keys.length;
      const parent = i + (i & -i);
      if (parent <= n) tree[parent]! += tree[i]!;
    }
    this.#tree = tree;
    return tree;
  }

  #bump(chunkIndex: number, delta: number): void {
    const tree = this.#tree;
    if (tree === null) return; // rebuilt from the chunks' lengths when next read
    for (let i = chunkIndex + 1; i < tree.length; i += i & -i) tree[i]! += delta;
  }

  /** Total length of chunks `0 .. chunkIndex - 1`. */
  #countBefore(chunkIndex: number): number {
    const tree = this.#fenwick();
    let sum = 0;
    for (let i = chunkIndex; i > 0; i -= i & -i) sum += tree[i]!;
    return sum;
  }

  /** Chunk and position holding the row of rank `rank` (which must be < size). */
  #locateRank(rank: number): [number, number] {
    const n = this.#chunks.length;
    const tree = this.#fenwick();
    let pos = 0;
    let remaining = rank;
    let step = 1;
    while (step * 2 <= n) step *= 2;
    for (; step > 0; step >>= 1) {
      const next = pos + step;
      if (next <= n && tree[next]! <= remaining) {
        pos = next;
        remaining -= tree[next]!;
      }
    }
    return [pos, remaining];
  }
}
