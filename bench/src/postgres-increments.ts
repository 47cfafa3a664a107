/**
 * Many concurrent increments of one counter, two ways: the store's compare-and-swap loop (what the
 * engine's `incState` does) and a raw `UPDATE … SET n = n + 1`, the floor a SQL counter costs. Both
 * check that every increment landed before reporting a throughput.
 */
import type { Fence, ScopeAddress } from "@flowrt/core";
import type { PostgresStores } from "@flowrt/store-postgres";
import type pg from "pg";

const quote = (name: string) => `"${name.replaceAll('"', '""')}"`;

async function workersDo(workers: number, fn: (worker: number) => Promise<void>): Promise<number> {
  const t0 = performance.now();
  await Promise.all(Array.from({ length: workers }, (_, worker) => fn(worker)));
  return (performance.now() - t0) / 1000;
}

/** Returns increments per second; throws if the counter does not end at `workers × each`. */
export async function rawIncrements(
  pool: pg.Pool,
  schema: string,
  label: string,
  workers: number,
  each: number,
): Promise<number> {
  const table = `${quote(schema)}.bench_counters`;
  await pool.query(`CREATE TABLE IF NOT EXISTS ${table} (label text PRIMARY KEY, n bigint NOT NULL)`);
  await pool.query(`INSERT INTO ${table} (label, n) VALUES ($1, 0)`, [label]);
  const seconds = await workersDo(workers, async () => {
    for (let i = 0; i < each; i++)
      await pool.query(`UPDATE ${table} SET n = n + 1 WHERE label = $1`, [label]);
  });
  const { rows } = await pool.query<{ n: string }>(`SELECT n FROM ${table} WHERE label = $1`, [label]);
  if (Number(rows[0]?.n) !== workers * each) {
    throw new Error(`raw UPDATE counter ended at ${rows[0]?.n}, not ${workers * each}`);
  }
  return (workers * each) / seconds;
}

/**
 * Each worker keeps the last value it saw, as an `incState` handle does: it computes the next value from
 * it, swaps it in if the version still matches, and on a lost race adopts the current value the store
 * returned and tries again. With a `fence`, every write carries it, as a durable run's writes do.
 */
export async function casIncrements(
  stores: PostgresStores,
  key: string,
  workers: number,
  each: number,
  fence?: Fence,
): Promise<{ opsPerSec: number; attemptsPerIncrement: number }> {
  const address: ScopeAddress = { scope: "org", scopeId: "bench", bucket: "shared" };
  let attempts = 0;
  const seconds = await workersDo(workers, async () => {
    const stored = await stores.resources.getState(address, key);
    let seen = stored ? { n: Number(stored.state.n), version: stored.version } : null;
    for (let i = 0; i < each; i++) {
      for (;;) {
        attempts++;
        const result = await stores.resources.putState(
          address,
          key,
          { n: (seen?.n ?? 0) + 1 },
          seen ? { type: "version", version: seen.version } : { type: "absent" },
          fence,
        );
        if (result.ok) {
          seen = { n: (seen?.n ?? 0) + 1, version: result.version };
          break;
        }
        seen = result.current ? { n: Number(result.current.value.n), version: result.current.version } : null;
      }
    }
  });
  const final = await stores.resources.getState(address, key);
  if (final?.state.n !== workers * each) {
    throw new Error(`compare-and-swap counter ended at ${String(final?.state.n)}, not ${workers * each}`);
  }
  return { opsPerSec: (workers * each) / seconds, attemptsPerIncrement: attempts / (workers * each) };
}

/** A running request claimed once (epoch 1): fenced increments run under its current claim, so none is refused. */
export async function claimedRequest(stores: PostgresStores, id: string): Promise<Fence> {
  const created = await stores.requests.create({
    id,
    sessionId: "bench",
    flowId: "bench",
    flowKind: "bench",
    action: "inc",
    userId: "bench",
    status: "running",
    input: null,
    metadata: {},
    durable: true,
    claim: { hostId: "bench", until: Date.now() + 3_600_000 },
    epoch: 1,
    version: 2,
    createdAt: new Date().toISOString(),
  });
  if (!created) throw new Error(`request ${id} exists already`);
  return { requestId: id, epoch: 1 };
}
