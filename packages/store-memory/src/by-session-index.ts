import { NewestFirstIndex, newerThan, type Positioned } from "./newest-first-index.js";

/** What the index reads of a row: its listing position and the session it belongs to. */
export interface SessionRow extends Positioned {
  readonly sessionId: string;
}

/**
 * Rows by session, each session's newest first (a {@link NewestFirstIndex}). Most sessions hold one row (an
 * ephemeral session made for one webhook delivery or one run): such a session keeps the row itself, and becomes a
 * sorted index only when a second row arrives, so the common case costs one map entry and no index object.
 */
export class BySessionIndex<Row extends SessionRow> {
  readonly #sessions = new Map<string, Row | NewestFirstIndex<Row>>();

  add(row: Row): void {
    const held = this.#sessions.get(row.sessionId);
    if (held === undefined) {
      this.#sessions.set(row.sessionId, row);
    } else if (held instanceof NewestFirstIndex) {
      held.add(row);
    } else if (held !== row) {
      const index = new NewestFirstIndex<Row>();
      index.add(held);
      index.add(row);
      this.#sessions.set(row.sessionId, index);
    }
  }

  /** Removes `row` when it is held. */
  delete(row: Row): void {
    const held = this.#sessions.get(row.sessionId);
    if (held === row) {
      this.#sessions.delete(row.sessionId);
    } else if (held instanceof NewestFirstIndex) {
      held.delete(row);
      if (held.size === 0) this.#sessions.delete(row.sessionId);
    }
  }

  /** Whether the session holds any row. */
  has(sessionId: string): boolean {
    return this.#sessions.has(sessionId);
  }

  /**
   * The session's rows newest first, from the first one strictly older than `after` (from the newest when
   * `after` is undefined).
   */
  *from(sessionId: string, after?: Positioned): IterableIterator<Row> {
    const held = this.#sessions.get(sessionId);
    if (held === undefined) return;
    if (held instanceof NewestFirstIndex) yield* held.from(after);
    else if (after === undefined || newerThan(after, held)) yield held;
  }
}
