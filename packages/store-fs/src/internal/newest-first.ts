/** What a {@link NewestFirst} orders by: a creation time (ISO 8601) and an id, unique among the entries. */
export interface Positioned {
  readonly createdAt: string;
  readonly id: string;
}

/** Whether `a` comes before `b` newest first: a later `createdAt`, or the same one and a greater id. */
function newerThan(a: Positioned, b: Positioned): boolean {
  return a.createdAt === b.createdAt ? a.id > b.id : a.createdAt > b.createdAt;
}

/**
 * Entries sorted newest first (`createdAt` descending, then `id` descending, in UTF-16 code-unit order), for
 * keyset pages: where a page starts is a binary search, so a page costs O(log n + what it reads) at any depth.
 * An insert or removal is a binary search and one `splice`.
 */
export class NewestFirst<T extends Positioned> {
  private readonly entries: T[] = [];

  get size(): number {
    return this.entries.length;
  }

  /** Adds `entry`, or replaces the entry at its position (same `createdAt` and id). */
  set(entry: T): void {
    const i = this.firstNotNewer(entry);
    const at = this.entries[i];
    if (at !== undefined && at.id === entry.id && at.createdAt === entry.createdAt) this.entries[i] = entry;
    else this.entries.splice(i, 0, entry);
  }

  /** Removes the entry at `position`, if there is one. */
  delete(position: Positioned): void {
    const i = this.firstNotNewer(position);
    const at = this.entries[i];
    if (at !== undefined && at.id === position.id && at.createdAt === position.createdAt)
      this.entries.splice(i, 1);
  }

  /** Entries in order, from the first one strictly after `after` (from the newest without it). */
  *from(after?: Positioned): IterableIterator<T> {
    for (let i = after === undefined ? 0 : this.firstAfter(after); i < this.entries.length; i++)
      yield this.entries[i]!;
  }

  /** Index of the first entry that is not newer than `position`. */
  private firstNotNewer(position: Positioned): number {
    let lo = 0;
    let hi = this.entries.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (newerThan(this.entries[mid]!, position)) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** Index of the first entry strictly after `position` in the order. */
  private firstAfter(position: Positioned): number {
    let lo = 0;
    let hi = this.entries.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (newerThan(position, this.entries[mid]!)) hi = mid;
      else lo = mid + 1;
    }
    return lo;
  }
}
