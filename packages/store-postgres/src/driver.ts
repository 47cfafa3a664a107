/**
 * The small surface the stores need from a PostgreSQL connection. `pg` pools and PGlite both
 * adapt to it (see `pg-driver.ts` and `pglite-driver.ts`), so the store code is the same on both.
 */

export interface QueryResultLike<R> {
  rows: R[];
}

/** Something that runs one parameterised statement. */
export interface Queryable {
  query<R = Record<string, unknown>>(text: string, params?: readonly unknown[]): Promise<QueryResultLike<R>>;
}

/** Called when a notification arrives on a listened channel; `payload` is `""` when none was sent. */
export type NotificationHandler = (payload: string) => void;

export interface PostgresListener {
  /** Stops listening and frees the connection the listener held. */
  close(): Promise<void>;
}

export interface PostgresDriver extends Queryable {
  /** Runs `fn` inside BEGIN … COMMIT on one connection, rolling back when it throws. */
  transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T>;
  /**
   * LISTENs on `channel` (a plain lower-case identifier). The promise settles once the LISTEN is
   * active, so a notification committed after it resolves is delivered. `onLost` is called when the
   * listening connection breaks; the caller starts a new listener.
   */
  listen(
    channel: string,
    onNotify: NotificationHandler,
    onLost: (error: Error) => void,
  ): Promise<PostgresListener>;
  /** Releases what the driver owns (an injected pool or database is left open). */
  close(): Promise<void>;
}
