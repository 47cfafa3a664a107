/**
 * The database of the Postgres part of the `ingest` benchmark: a fresh database made for the run on the server
 * `DATABASE_URL` names (dropped at the end), one schema in it per server, so that `pg_stat_database` counts the
 * transactions of this run's servers only. Without the right to create a database (`CREATEDB`), the run uses
 * `DATABASE_URL`'s database itself, and its transaction counts then include whatever else uses it.
 *
 * Every query this module sends is counted ({@link BenchDatabase.ownQueries}): each is one transaction of its own,
 * which the transaction figures subtract.
 */
import { randomBytes } from "node:crypto";
import pg from "pg";

export interface BenchDatabase {
  /** The connection string the servers use. */
  url: string;
  /** Whether this run made the database (and so nothing else uses it). */
  own: boolean;
  /** Committed and rolled-back transactions of the database so far (`pg_stat_database`). */
  transactions(): Promise<number>;
  /** flowrt requests not finished (`queued`, `running`) in `schema`. */
  unfinishedRequests(schema: string): Promise<number>;
  /** flowrt requests that ended `failed` or `aborted` in `schema`. */
  failedRequests(schema: string): Promise<number>;
  /** graphile-worker jobs still in its table (queued, running or failed and waiting to retry) in `schema`. */
  jobs(schema: string): Promise<number>;
  /** Queries this module has sent to the database so far: each one is a transaction. */
  ownQueries(): number;
  close(): Promise<void>;
}

const quote = (name: string) => `"${name.replaceAll('"', '""')}"`;

export async function openBenchDatabase(databaseUrl: string): Promise<BenchDatabase> {
  const name = `flowrt_ingest_${randomBytes(4).toString("hex")}`;
  const server = new pg.Client({ connectionString: databaseUrl });
  await server.connect();
  let own = true;
  try {
    await server.query(`CREATE DATABASE ${quote(name)}`);
  } catch (error) {
    own = false;
    process.stderr.write(
      `ingest: could not create a database (${(error as Error).message}); using DATABASE_URL's own\n`,
    );
  }
  const url = new URL(databaseUrl);
  if (own) url.pathname = `/${name}`;
  const client = new pg.Client({ connectionString: url.href });
  await client.connect();
  let queries = 0;
  const count = async (text: string): Promise<number> => {
    queries++;
    const { rows } = await client.query<{ n: string }>(text);
    return Number(rows[0]?.n ?? 0);
  };
  return {
    url: url.href,
    own,
    transactions: () =>
      count(
        "SELECT xact_commit + xact_rollback AS n FROM pg_stat_database WHERE datname = current_database()",
      ),
    unfinishedRequests: (schema) =>
      count(
        `SELECT count(*) AS n FROM ${quote(schema)}.flowrt_requests WHERE status IN ('queued', 'running')`,
      ),
    failedRequests: (schema) =>
      count(
        `SELECT count(*) AS n FROM ${quote(schema)}.flowrt_requests WHERE status IN ('failed', 'aborted')`,
      ),
    jobs: (schema) => count(`SELECT count(*) AS n FROM ${quote(schema)}._private_jobs`),
    ownQueries: () => queries,
    async close() {
      await client.end();
      if (own) await server.query(`DROP DATABASE IF EXISTS ${quote(name)} WITH (FORCE)`);
      await server.end();
    },
  };
}
