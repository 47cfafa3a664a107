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

/**
 * Rows sorted newest first (`createdAt` descending, then `id` descending), for keyset pages: finding where a
 * page starts is a binary search, so a page costs O(log n + what it walks) at any depth. An insert or delete
 * is a binary search and one `splice`. Rows are kept by identity; each must be in the index at most once.
 */
export class NewestFirstIndex<Row extends Positioned> {
  readonly #rows: Row[] = [];

  get size(): number {
    return this.#rows.length;
  }

  add(row: Row): void {
    this.#rows.splice(this.#startAfterNewer(row), 0, row);
  }

  /** Removes `row` when it is in the index. */
  delete(row: Row): void {
    for (let i = this.#startAfterNewer(row); i < this.#rows.length; i++) {
      const at = this.#rows[i]!;
      if (at === row) {
        this.#rows.splice(i, 1);
        return;
      }
      // Equal positions sit together; past them the row is not here.
      if (at.createdAt !== row.createdAt || at.id !== row.id) return;
    }
  }

  /**
   * Rows in order, from the first one after `after` (strictly older in the listing order; from the newest
   * when `after` is undefined).
   */
  *from(after?: Positioned): IterableIterator<Row> {
    const rows = this.#rows;
    let i = after === undefined ? 0 : this.#startAfter(after);
    for (; i < rows.length; i++) yield rows[i]!;
  }

  /** Index of the first row that is not newer than `position` (a row equal to it included). */
  #startAfterNewer(position: Positioned): number {
    let lo = 0;
    let hi = this.#rows.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (newerThan(this.#rows[mid]!, position)) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** Index of the first row strictly after `position` in the listing order. */
  #startAfter(position: Positioned): number {
    let lo = 0;
    let hi = this.#rows.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (newerThan(position, this.#rows[mid]!)) hi = mid;
      else lo = mid + 1;
    }
    return lo;
  }
}
