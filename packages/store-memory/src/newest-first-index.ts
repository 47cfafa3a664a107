/** What a {@link NewestFirstIndex} orders by: a creation time (ISO 8601) and an id. */
export interface Positioned {
  readonly createdAt: string;
  readonly id: string;
}

/**
 * Whether `a` comes before `b` newest first: a later `createdAt`, or the same one and a greater id (plain
 * code-unit order, as the other stores compare ids and ISO times).
 */
export function newerThan(a: Positioned, b: Positioned): boolean {
  return a.createdAt === b.createdAt ? a.id > b.id : a.createdAt > b.createdAt;
}

/** How many rows at the end an insert walks past before it searches instead. */
const SHORT_WALK = 8;

/** Below this many removed rows an index is never compacted (a small one is cheap to walk past them). */
const COMPACT_AT_LEAST = 64;

/**
 * Rows sorted newest first (`createdAt` descending, then `id` descending), for keyset pages: finding where a
 * page starts is a binary search, so a page costs O(log n + what it walks) at any depth.
 *
 * The rows are held oldest first, so the usual insert (a row newer than all, as sessions and requests are made)
 * is an append; removing the oldest row (retention) moves the start of the live part past it, removing the
 * newest drops it, and any other removal marks the row; the array is compacted once half of it is dead, so every
 * removal costs O(1) amortised rather than moving the array. An insert out of
 * order is a binary search and one `splice`. Rows are kept by identity; each must be in the index at most once,
 * and its `createdAt` and `id` must not change while it is.
 */
export class NewestFirstIndex<Row extends Positioned> {
  /** Oldest first from {@link #start}; rows before it, and marked ones, are removed and stay until a compaction. */
  #rows: Row[] = [];
  /** Where the live part of {@link #rows} begins: the oldest rows removed are left behind it. */
  #start = 0;
  /** Rows removed but still in the array; made on the first such removal (most indexes never need one). */
  #removed: Set<Row> | undefined;

  get size(): number {
    return this.#rows.length - this.#start - (this.#removed?.size ?? 0);
  }

  add(row: Row): void {
    // Removed and added again before a compaction: it is still in its place.
    if (this.#removed?.delete(row)) return;
    const rows = this.#rows;
    // Rows are made newest last, but those of one millisecond come in any id order: a row goes back past the few
    // newer ones at the end by a short walk, and only a row older than those by a binary search.
    let at = rows.length;
    while (at > this.#start && !newerThan(row, rows[at - 1]!)) {
      if (rows.length - at === SHORT_WALK) {
        at = this.#firstNewerThan(row);
        break;
      }
      at--;
    }
    if (at === rows.length) rows.push(row);
    else rows.splice(at, 0, row);
  }

  /** Removes `row` when it is in the index. */
  delete(row: Row): void {
    if (this.#removed?.has(row)) return;
    const rows = this.#rows;
    if (rows.length === this.#start) return;
    // The newest row (a session's only request, the last one made) leaves the array at once.
    if (rows[rows.length - 1] === row) {
      rows.pop();
      if (rows.length === this.#start) this.#clear();
      return;
    }
    // The oldest (what retention removes): the live part starts after it, and after any marked rows next to it.
    if (rows[this.#start] === row) {
      this.#start++;
      const removed = this.#removed;
      while (removed !== undefined && this.#start < rows.length && removed.delete(rows[this.#start]!))
        this.#start++;
      if (rows.length === this.#start) this.#clear();
      else if (this.#start >= COMPACT_AT_LEAST && this.#start * 2 >= rows.length) this.#compact();
      return;
    }
    if (!this.#holds(row)) return;
    const removed = (this.#removed ??= new Set());
    removed.add(row);
    if (removed.size >= COMPACT_AT_LEAST && (removed.size + this.#start) * 2 >= rows.length) this.#compact();
  }

  /**
   * Rows in order, from the first one after `after` (strictly older in the listing order; from the newest
   * when `after` is undefined).
   */
  *from(after?: Positioned): IterableIterator<Row> {
    const rows = this.#rows;
    const removed = this.#removed;
    // Rows strictly older than `after` are a prefix of the oldest-first array: walked from its end.
    const start = this.#start;
    for (let i = (after === undefined ? rows.length : this.#firstNotOlderThan(after)) - 1; i >= start; i--) {
      const row = rows[i]!;
      if (removed === undefined || removed.size === 0 || !removed.has(row)) yield row;
    }
  }

  /** Whether `row` itself (not only a row at its position) is in the array. */
  #holds(row: Row): boolean {
    const rows = this.#rows;
    for (let i = this.#firstNewerThan(row) - 1; i >= this.#start; i--) {
      const at = rows[i]!;
      if (at === row) return true;
      // Equal positions sit together; past them the row is not here.
      if (at.createdAt !== row.createdAt || at.id !== row.id) return false;
    }
    return false;
  }

  #compact(): void {
    const removed = this.#removed;
    const live = this.#rows.slice(this.#start);
    this.#rows = removed === undefined ? live : live.filter((row) => !removed.has(row));
    this.#start = 0;
    this.#removed = undefined;
  }

  /** Nothing is live: the array starts again empty. */
  #clear(): void {
    this.#rows = [];
    this.#start = 0;
    this.#removed = undefined;
  }

  /** Index of the first row newer than `position` (the array's length when none is). */
  #firstNewerThan(position: Positioned): number {
    const rows = this.#rows;
    let lo = this.#start;
    let hi = rows.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (newerThan(rows[mid]!, position)) hi = mid;
      else lo = mid + 1;
    }
    return lo;
  }

  /** Index of the first row that is not older than `position` (a row equal to it included). */
  #firstNotOlderThan(position: Positioned): number {
    const rows = this.#rows;
    let lo = this.#start;
    let hi = rows.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (newerThan(position, rows[mid]!)) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }
}
