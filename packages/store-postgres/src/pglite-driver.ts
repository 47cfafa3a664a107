import type { PostgresDriver, Queryable } from "./driver.js";

/**
 * The part of a PGlite instance (`@electric-sql/pglite`) the driver uses. Declared here so the
 * package has no runtime dependency on PGlite; a `PGlite` object satisfies it.
 */
export interface PgliteLike {
  query<R>(text: string, params?: unknown[]): Promise<{ rows: R[] }>;
  transaction<T>(
    fn: (tx: { query<R>(text: string, params?: unknown[]): Promise<{ rows: R[] }> }) => Promise<T>,
  ): Promise<T>;
  listen(channel: string, callback: (payload: string) => void): Promise<() => Promise<void>>;
}

/**
 * Adapts a PGlite database (embedded PostgreSQL in WebAssembly) for `createPostgresStores({ driver })`.
 * PGlite is one session in this process: it suits tests and single-process apps, not several hosts.
 * The database stays open after the stores close; close it yourself.
 *
 * @example
 * const db = new PGlite();
 * const stores = createPostgresStores({ driver: createPgliteDriver(db) });
 * await stores.setup();
 */
export function createPgliteDriver(db: PgliteLike): PostgresDriver {
  const wrap = (target: PgliteLike | Parameters<Parameters<PgliteLike["transaction"]>[0]>[0]): Queryable => ({
    query: (text, params) => target.query(text, params === undefined ? undefined : [...params]),
  });
  const top = wrap(db);
  return {
    query: top.query,
    transaction: (fn) => db.transaction((tx) => fn(wrap(tx))),
    async listen(channel, onNotify) {
      // PGlite runs in this process, so its listening connection cannot break on its own.
      const unlisten = await db.listen(channel, onNotify);
      return { close: () => unlisten() };
    },
    async close() {},
  };
}
