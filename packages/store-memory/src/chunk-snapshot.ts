import type { JsonObject, ResourceStateRecord } from "@flowrt/core";
import type { Row } from "./row.js";

/**
 * A snapshot whose text would pass this many characters keeps no text (every row is read from its
 * own string): V8 caps a string's length, and states this large cost far more to parse than to find.
 */
export const MAX_SNAPSHOT_CHARS = 1 << 24;

/** Sentinel start of a span whose row changed since the text was laid out: read the row instead. */
const STALE = -1;

/**
 * A chunk's rows laid out in a few flat objects, kept position by position in step with the chunk.
 *
 * Rows are created in whatever order keys arrive, so at a million keys the rows of one page are
 * scattered across the heap and each costs several cache misses. A page read from a snapshot touches
 * one string and two flat number arrays instead. Writes never rebuild it: a changed or inserted row's
 * span is marked stale and read from the row, and the text is laid out again (from the old text and
 * the few stale rows) once stale rows or dead characters pile up.
 */
export class ChunkSnapshot {
  /** States in key order, separated by `,`; may hold dead stretches left by deleted or changed rows. */
  #text: string;
  /** Per row, the `[start, end)` of its state in `#text`, or `STALE, STALE`. */
  #spans: number[];
  /** Per row: version, createdAt, accessedAt. */
  #numbers: number[];
  /** Characters of `#text` inside a live span. */
  #liveChars: number;
  #staleRows: number;
  /** Set when laying the text out would pass `#maxChars`; cleared when rows leave. */
  #oversized = false;
  readonly #maxChars: number;

  private constructor(text: string, spans: number[], numbers: number[], maxChars: number) {
    this.#maxChars = maxChars;
    this.#text = text;
    this.#spans = spans;
    this.#numbers = numbers;
    this.#liveChars = 0;
    this.#staleRows = 0;
    this.#recount();
  }

  /**
   * Lays out `rows` from scratch (the first page to read a chunk pays for this, once).
   * @param maxChars Longest text to lay out; smaller values exist for tests.
   */
  static build(rows: readonly Row[], maxChars = MAX_SNAPSHOT_CHARS): ChunkSnapshot {
    const numbers = new Array<number>(rows.length * 3);
    for (let i = 0; i < rows.length; i++) {
      numbers[3 * i] = rows[i]!.version;
      numbers[3 * i + 1] = rows[i]!.createdAt;
      numbers[3 * i + 2] = rows[i]!.accessedAt;
    }
    const snapshot = new ChunkSnapshot("", new Array<number>(rows.length * 2).fill(STALE), numbers, maxChars);
    snapshot.#layOut(rows);
    return snapshot;
  }

  /** Length of the laid-out text, dead stretches included. */
  get textLength(): number {
    return this.#text.length;
  }

  /** Rows whose state is read from the row rather than from the text. */
  get staleRows(): number {
    return this.#staleRows;
  }

  /** The snapshot of two adjacent chunks merged into one, or `null` when it would be too long. */
  static concat(left: ChunkSnapshot, right: ChunkSnapshot): ChunkSnapshot | null {
    if (left.#text.length + right.#text.length + 1 > left.#maxChars) return null;
    const shift = left.#text.length + 1;
    const spans = left.#spans.concat(right.#spans.map((at) => (at === STALE ? STALE : at + shift)));
    const numbers = left.#numbers.concat(right.#numbers);
    return new ChunkSnapshot(`${left.#text},${right.#text}`, spans, numbers, left.#maxChars);
  }

  /** Splits off the rows from `position` on (sharing this text), as the chunk itself splits. */
  split(position: number): ChunkSnapshot {
    const upper = new ChunkSnapshot(
      this.#text,
      this.#spans.splice(2 * position),
      this.#numbers.splice(3 * position),
      this.#maxChars,
    );
    this.#recount();
    this.#oversized = false;
    return upper;
  }

  insert(position: number, row: Row): void {
    this.#spans.splice(2 * position, 0, STALE, STALE);
    this.#numbers.splice(3 * position, 0, row.version, row.createdAt, row.accessedAt);
    this.#staleRows++;
  }

  remove(position: number): void {
    this.#forget(position);
    if (this.#spans[2 * position] === STALE) this.#staleRows--;
    this.#spans.splice(2 * position, 2);
    this.#numbers.splice(3 * position, 3);
    this.#oversized = false;
  }

  /** The row at `position` has a new state, version or createdAt. */
  update(position: number, row: Row): void {
    this.#forget(position);
    if (this.#spans[2 * position] !== STALE) {
      this.#spans[2 * position] = STALE;
      this.#spans[2 * position + 1] = STALE;
      this.#staleRows++;
    }
    this.#numbers[3 * position] = row.version;
    this.#numbers[3 * position + 1] = row.createdAt;
    this.#numbers[3 * position + 2] = row.accessedAt;
  }

  touch(position: number, at: number): void {
    this.#numbers[3 * position + 2] = at;
  }

  /** Appends the records of `rows[from .. to - 1]` (the chunk's rows, in step with this snapshot) to `out`. */
  read(
    keys: readonly string[],
    rows: readonly Row[],
    from: number,
    to: number,
    out: ResourceStateRecord[],
  ): void {
    if (from >= to) return;
    const dead = this.#text.length - this.#liveChars - (rows.length - this.#staleRows);
    if (!this.#oversized && (this.#staleRows > rows.length >>> 3 || dead > this.#liveChars))
      this.#layOut(rows);
    // One parse for the whole run: cheaper than one call per row, and it reads one contiguous string.
    const states = JSON.parse(`[${this.#join(rows, from, to)}]`) as JsonObject[];
    const numbers = this.#numbers;
    for (let i = from; i < to; i++) {
      out.push({
        key: keys[i]!,
        state: states[i - from]!,
        version: numbers[3 * i]!,
        createdAt: numbers[3 * i + 1]!,
        accessedAt: numbers[3 * i + 2]!,
      });
    }
  }

  /** The states of rows `from .. to - 1` joined by `,`: runs of adjacent spans are copied as one slice. */
  #join(rows: readonly Row[], from: number, to: number): string {
    const spans = this.#spans;
    const pieces: string[] = [];
    let runStart = STALE;
    let runEnd = STALE;
    for (let i = from; i < to; i++) {
      const start = spans[2 * i]!;
      if (start !== STALE && runStart !== STALE && start === runEnd + 1) {
        runEnd = spans[2 * i + 1]!;
        continue;
      }
      if (runStart !== STALE) pieces.push(this.#text.slice(runStart, runEnd));
      if (start === STALE) {
        pieces.push(rows[i]!.state!);
        runStart = runEnd = STALE;
      } else {
        runStart = start;
        runEnd = spans[2 * i + 1]!;
      }
    }
    if (runStart !== STALE) pieces.push(this.#text.slice(runStart, runEnd));
    return pieces.join(",");
  }

  /** Lays the text out again without dead stretches or stale spans (unless it would be too long). */
  #layOut(rows: readonly Row[]): void {
    let length = 0;
    for (let i = 0; i < rows.length; i++) {
      const start = this.#spans[2 * i]!;
      length += (start === STALE ? rows[i]!.state!.length : this.#spans[2 * i + 1]! - start) + 1;
    }
    if (length > this.#maxChars) {
      this.#oversized = true;
      return;
    }
    const text = this.#join(rows, 0, rows.length);
    let at = 0;
    for (let i = 0; i < rows.length; i++) {
      const start = this.#spans[2 * i]!;
      const end = at + (start === STALE ? rows[i]!.state!.length : this.#spans[2 * i + 1]! - start);
      this.#spans[2 * i] = at;
      this.#spans[2 * i + 1] = end;
      at = end + 1;
    }
    this.#text = text;
    this.#recount();
  }

  /** Takes a live span's characters out of the live count before the span goes away. */
  #forget(position: number): void {
    const start = this.#spans[2 * position]!;
    if (start !== STALE) this.#liveChars -= this.#spans[2 * position + 1]! - start;
  }

  #recount(): void {
    let live = 0;
    let stale = 0;
    for (let i = 0; i < this.#spans.length; i += 2) {
      if (this.#spans[i] === STALE) stale++;
      else live += this.#spans[i + 1]! - this.#spans[i]!;
    }
    this.#liveChars = live;
    this.#staleRows = stale;
  }
}
