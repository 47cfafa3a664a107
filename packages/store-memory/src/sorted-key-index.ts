/**
 * Chunk length at which a chunk is split in two. Inserting costs a binary search over chunk maxima,
 * one within the chunk and a `splice` of at most this many elements; the chunk count stays small
 * enough that rebuilding the per-chunk count tree on a split is cheap.
 */
const DEFAULT_MAX_CHUNK = 1024;

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
 * A sorted set of strings (UTF-16 code-unit order) with positional access: a list of sorted chunks
 * plus a Fenwick tree of chunk lengths. Rank, insert and delete cost O(log n) comparisons (plus a
 * bounded `splice`), and reading `count` keys from a rank costs O(log n + count).
 */
export class SortedKeyIndex {
  #chunks: string[][] = [];
  /** Last (greatest) key of each chunk, for the binary search that picks a chunk. */
  #maxes: string[] = [];
  /** Fenwick tree over chunk lengths, 1-based. */
  #tree: number[] = [0];
  #size = 0;
  readonly #maxChunk: number;
  /** A chunk this short is merged into a neighbour, so deletes cannot leave many near-empty chunks. */
  readonly #minChunk: number;

  /** @param maxChunk Chunk length that triggers a split; small values exist for tests. */
  constructor(maxChunk = DEFAULT_MAX_CHUNK) {
    if (!Number.isInteger(maxChunk) || maxChunk < 4) throw new RangeError("maxChunk must be an integer >= 4");
    this.#maxChunk = maxChunk;
    this.#minChunk = maxChunk >>> 3;
  }

  get size(): number {
    return this.#size;
  }

  has(key: string): boolean {
    const c = lowerBound(this.#maxes, key);
    return c < this.#chunks.length && this.#chunks[c]![lowerBound(this.#chunks[c]!, key)] === key;
  }

  /** Adds `key`; false when it was already present. */
  add(key: string): boolean {
    if (this.#chunks.length === 0) {
      this.#chunks.push([key]);
      this.#maxes.push(key);
      this.#size = 1;
      this.#rebuild();
      return true;
    }
    // A key beyond every chunk's maximum goes at the end of the last chunk.
    const c = Math.min(lowerBound(this.#maxes, key), this.#chunks.length - 1);
    const chunk = this.#chunks[c]!;
    const pos = lowerBound(chunk, key);
    if (chunk[pos] === key) return false;
    chunk.splice(pos, 0, key);
    this.#maxes[c] = chunk[chunk.length - 1]!;
    this.#size++;
    if (chunk.length > this.#maxChunk) {
      const upper = chunk.splice(chunk.length >>> 1);
      this.#chunks.splice(c + 1, 0, upper);
      this.#maxes[c] = chunk[chunk.length - 1]!;
      this.#maxes.splice(c + 1, 0, upper[upper.length - 1]!);
      this.#rebuild();
    } else {
      this.#bump(c, 1);
    }
    return true;
  }

  /** Removes `key`; false when it was absent. */
  delete(key: string): boolean {
    const c = lowerBound(this.#maxes, key);
    if (c >= this.#chunks.length) return false;
    const chunk = this.#chunks[c]!;
    const pos = lowerBound(chunk, key);
    if (chunk[pos] !== key) return false;
    chunk.splice(pos, 1);
    this.#size--;
    if (chunk.length === 0) {
      this.#chunks.splice(c, 1);
      this.#maxes.splice(c, 1);
      this.#rebuild();
    } else if (chunk.length < this.#minChunk && this.#chunks.length > 1) {
      this.#maxes[c] = chunk[chunk.length - 1]!;
      this.#mergeWithNeighbour(c);
    } else {
      this.#maxes[c] = chunk[chunk.length - 1]!;
      this.#bump(c, -1);
    }
    return true;
  }

  /** How many keys are less than `key`. */
  rank(key: string): number {
    const c = lowerBound(this.#maxes, key);
    if (c >= this.#chunks.length) return this.#size;
    return this.#countBefore(c) + lowerBound(this.#chunks[c]!, key);
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

  /** Up to `count` keys in order, starting at rank `start`. */
  slice(start: number, count: number): string[] {
    const out: string[] = [];
    if (count <= 0 || start >= this.#size) return out;
    let [c, pos] = this.#locateRank(Math.max(0, start));
    while (out.length < count && c < this.#chunks.length) {
      const chunk = this.#chunks[c]!;
      const take = Math.min(chunk.length - pos, count - out.length);
      for (let i = 0; i < take; i++) out.push(chunk[pos + i]!);
      c++;
      pos = 0;
    }
    return out;
  }

  *[Symbol.iterator](): IterableIterator<string> {
    for (const chunk of this.#chunks) yield* chunk;
  }

  #mergeWithNeighbour(c: number): void {
    // Merge into the smaller neighbour; split again if the result is too long.
    const left = c > 0 ? c - 1 : c;
    const merged = this.#chunks[left]!.concat(this.#chunks[left + 1]!);
    const parts =
      merged.length > this.#maxChunk
        ? [merged.slice(0, merged.length >>> 1), merged.slice(merged.length >>> 1)]
        : [merged];
    this.#chunks.splice(left, 2, ...parts);
    this.#maxes.splice(left, 2, ...parts.map((part) => part[part.length - 1]!));
    this.#rebuild();
  }

  #rebuild(): void {
    const n = this.#chunks.length;
    const tree = new Array<number>(n + 1).fill(0);
    for (let i = 1; i <= n; i++) {
      tree[i]! += this.#chunks[i - 1]!.length;
      const parent = i + (i & -i);
      if (parent <= n) tree[parent]! += tree[i]!;
    }
    this.#tree = tree;
  }

  #bump(chunkIndex: number, delta: number): void {
    for (let i = chunkIndex + 1; i < this.#tree.length; i += i & -i) this.#tree[i]! += delta;
  }

  /** Total length of chunks `0 .. chunkIndex - 1`. */
  #countBefore(chunkIndex: number): number {
    let sum = 0;
    for (let i = chunkIndex; i > 0; i -= i & -i) sum += this.#tree[i]!;
    return sum;
  }

  /** Chunk and position holding the key of rank `rank` (which must be < size). */
  #locateRank(rank: number): [number, number] {
    const n = this.#chunks.length;
    let pos = 0;
    let remaining = rank;
    let step = 1;
    while (step * 2 <= n) step *= 2;
    for (; step > 0; step >>= 1) {
      const next = pos + step;
      if (next <= n && this.#tree[next]! <= remaining) {
        pos = next;
        remaining -= this.#tree[next]!;
      }
    }
    return [pos, remaining];
  }
}
