/**
 * Bulk-loads resource rows for the Postgres benchmark straight into the store's own tables: one
 * `INSERT … SELECT generate_series` instead of a million API calls. The rows are exactly what
 * `putState(…, { type: "absent" })` writes (keys as UTF-16BE bytes, version 1, live), and the live-key
 * counters the store's trigger would keep are written alongside, so the store reads them as its own: per
 * prefix ending in "/" (and ""), how many live keys start with it (`live`) and, where the schema has the
 * column, how many of them have that prefix as their folder (`leaf`: here `items/`, for every item).
 */
import type pg from "pg";

const quote = (name: string) => `"${name.replaceAll('"', '""')}"`;

/** `items/00000042`: fixed-width, so key order is numeric order. */
export const benchKey = (i: number) => `items/${String(i).padStart(8, "0")}`;

/** UTF-16BE bytes of an ASCII text expression, as the store encodes keys. */
const utf16 = (text: string) =>
  `decode(regexp_replace(encode(convert_to(${text}, 'UTF8'), 'hex'), '(..)', '00\\1', 'g'), 'hex')`;

/** Whether the store's counters table keeps leaf counts (the store's migration 7 on). */
async function hasLeafCounter(client: pg.PoolClient, schema: string): Promise<boolean> {
  const { rowCount } = await client.query(
    `SELECT 1 FROM information_schema.columns
     WHERE table_schema = $1 AND table_name = 'flowrt_resource_counts' AND column_name = 'leaf'`,
    [schema],
  );
  return (rowCount ?? 0) > 0;
}

export async function bulkLoad(
  pool: pg.Pool,
  schema: string,
  address: { scope: string; scopeId: string; bucket: string },
  count: number,
): Promise<void> {
  const resources = `${quote(schema)}.flowrt_resources`;
  const counts = `${quote(schema)}.flowrt_resource_counts`;
  const client = await pool.connect();
  try {
    await client.query("BEGIN");
    // The counting trigger upserts the same two counter rows once per inserted row; in one statement of
    // a million rows that is a million versions of one row. Set the counters once instead, in the same
    // transaction, so no other session ever sees the trigger off or the counts wrong.
    await client.query(`ALTER TABLE ${resources} DISABLE TRIGGER flowrt_resources_count_insert`);
    // Random insertion order: the index must not depend on keys arriving sorted.
    await client.query(
      `INSERT INTO ${resources} (scope, scope_id, bucket, key, state, version, deleted, created_at, accessed_at)
       SELECT $1, $2, $3, ${utf16("'items/' || lpad(i::text, 8, '0')")},
              json_build_object('n', i, 'title', 'item ' || i), 1, false, $5, $5
       FROM generate_series(0, $4::int - 1) AS i ORDER BY random()`,
      [address.scope, address.scopeId, address.bucket, count, Date.now()],
    );
    await client.query(`ALTER TABLE ${resources} ENABLE TRIGGER flowrt_resources_count_insert`);
    const leaf = await hasLeafCounter(client, schema);
    await client.query(
      leaf
        ? `INSERT INTO ${counts} (scope, scope_id, bucket, prefix, live, leaf)
           VALUES ($1, $2, $3, ''::bytea, $4, 0), ($1, $2, $3, ${utf16("'items/'")}, $4, $4)
           ON CONFLICT (scope, scope_id, bucket, prefix)
           DO UPDATE SET live = ${counts}.live + EXCLUDED.live, leaf = ${counts}.leaf + EXCLUDED.leaf`
        : `INSERT INTO ${counts} (scope, scope_id, bucket, prefix, live)
           VALUES ($1, $2, $3, ''::bytea, $4), ($1, $2, $3, ${utf16("'items/'")}, $4)
           ON CONFLICT (scope, scope_id, bucket, prefix) DO UPDATE SET live = ${counts}.live + EXCLUDED.live`,
      [address.scope, address.scopeId, address.bucket, count],
    );
    await client.query("COMMIT");
  } catch (error) {
    await client.query("ROLLBACK").catch(() => {});
    throw error;
  } finally {
    client.release();
  }
  // Fresh statistics and visibility map, as a table that has lived a while would have.
  await pool.query(`VACUUM ANALYZE ${resources}`);
  await pool.query(`VACUUM ANALYZE ${counts}`);
}
