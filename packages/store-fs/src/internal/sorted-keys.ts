import { compareStrings } from "./compare-strings.js";

/**
 * A sorted array of distinct strings in UTF-16 code-unit order (JavaScript's `<`). Lookups and
 * prefix ranges are binary searches, so a page costs O(log n + limit); an insert or removal moves
 * part of the array (a memmove, fast at hundreds of thousands of keys).
 */
export class SortedKeys {
  private keys: string[];

  /** `keys` must be distinct; they are sorted here. */
  constructor(keys: Iterable<string> = []) {
    this.keys = [...keys].sort(compareStrings);
  }

  get size(): number {
    return this.keys.length;
  }

  has(key: string): boolean {
    const i = this.lowerBound(key);
    return this.keys[i] === key;
  }

  add(key: string): void {
    const i = this.lowerBound(key);
    if (this.keys[i] !== key) this.keys.splice(i, 0, key);
  }

  delete(key: string): void {
    const i = this.lowerBound(key);
    if (this.keys[i] === key) this.keys.splice(i, 1);
  }

  /** `[start, end)` of the keys that begin with `prefix` (a plain string, no wildcards). */
  range(prefix: string): [number, number] {
    const start = this.lowerBound(prefix);
    if (prefix === "") return [start, this.keys.length];
    // Keys >= prefix that start with it form one run at the front of the tail.
    let lo = start;
    let hi = this.keys.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.keys[mid]!.startsWith(prefix)) lo = mid + 1;
      else hi = mid;
    }
    return [start, lo];
  }

  /** How many keys are less than or equal to `key`: the index of the first key strictly greater. */
  rankAfter(key: string): number {
    let lo = 0;
    let hi = this.keys.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.keys[mid]! <= key) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  slice(start: number, end: number): string[] {
    return this.keys.slice(start, end);
  }

  /** Every key, in order (a copy). */
  all(): string[] {
    return this.keys.slice();
  }

  private lowerBound(key: string): number {
    let lo = 0;
    let hi = this.keys.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.keys[mid]! < key) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }
}
