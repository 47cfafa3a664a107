/**
 * Round trips to the database, counted inside a server of the `ingest` benchmark: with `INGEST_COUNT_ROUND_TRIPS=1`
 * in its environment, {@link countRoundTrips} wraps `pg.Client.prototype.query` of every copy of `pg` the named
 * packages load (the flowrt store's, graphile-worker's) and counts each call: one query sent and its answer awaited,
 * `pg.Pool#query` included (it calls the client's). A text with several statements counts once, as it is one
 * round trip. Without the variable nothing is wrapped and the count stays 0.
 */
import { createRequire } from "node:module";

interface QueryingClient {
  prototype: { query: (...args: unknown[]) => unknown };
}

let calls = 0;
const wrapped = new Set<object>();

/** Queries sent so far by every wrapped `pg` (0 when counting is off). */
export const roundTrips = () => calls;

/**
 * Wraps `pg` as each of `packages` resolves it (an import specifier: `@flowrt/store-postgres`, `graphile-worker`),
 * and as this benchmark resolves it, once per distinct copy. Returns whether counting is on.
 */
export function countRoundTrips(packages: string[]): boolean {
  if (process.env.INGEST_COUNT_ROUND_TRIPS !== "1") return false;
  for (const from of [import.meta.url, ...packages.map((name) => import.meta.resolve(name))]) {
    // `pg` as that package requires it (pg's ESM entry re-exports the same CommonJS classes).
    const pg = createRequire(from)("pg") as { Client: QueryingClient };
    const proto = pg.Client.prototype;
    if (wrapped.has(proto)) continue;
    wrapped.add(proto);
    const query = proto.query;
    proto.query = function (this: unknown, ...args: unknown[]) {
      calls++;
      return query.apply(this, args);
    };
  }
  return true;
}
