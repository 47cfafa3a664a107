/**
 * Every SQL statement the stores run, built once per store for its schema. Statements are single
 * and parameterised; compare-and-swap writes guard on the version column inside the statement, so
 * the database settles races between hosts. The request store's statements are in `request-sql.ts`, the
 * fragments several share in `sql-fragments.ts`.
 */
import { requestSql } from "./request-sql.js";
import {
  afterPosition,
  FENCE_EPOCH,
  fenceCte,
  fenceHolds,
  KEY_WHERE,
  LISTED_SESSIONS,
  NEWEST_FIRST,
  page,
  RESOURCE_COLUMNS,
  removeRequests,
  removeScopeCounts,
  removeScopeData,
  SCHEDULE_WHERE,
  SCOPE_WHERE,
  SESSION_COLUMNS,
  type TableNames,
  TICK_COLUMNS,
} from "./sql-fragments.js";

export { quoteIdent, type TableNames, tableNames } from "./sql-fragments.js";

export function buildSql(n: TableNames) {
  return {
    advisoryLock: "SELECT pg_advisory_xact_lock(1718382455, hashtext($1))",
    createSchema: `CREATE SCHEMA IF NOT EXISTS ${n.schema}`,
    createMigrations: `CREATE TABLE IF NOT EXISTS ${n.migrations} (id integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())`,
    appliedMigrations: `SELECT id FROM ${n.migrations}`,
    recordMigration: `INSERT INTO ${n.migrations} (id, name) VALUES ($1, $2)`,

    sessions: {
      insert: `INSERT INTO ${n.sessions} (id, flow_id, flow_kind, user_id, org_id, tenant_id, parent_session_id, root_session_id, title, metadata, created_at)
        VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10::json, $11) ON CONFLICT (id) DO NOTHING RETURNING id`,
      get: `SELECT ${SESSION_COLUMNS} FROM ${n.sessions} WHERE id = $1`,
      /** `$1` user, `$2` org, `$3` flow ids (each null for no filter), `$4` offset, `$5` limit (null: all). */
      list: `SELECT ${SESSION_COLUMNS} FROM ${n.sessions} WHERE ${LISTED_SESSIONS}
        ORDER BY ${NEWEST_FIRST} OFFSET $4 LIMIT $5`,
      /** The same after a keyset position: `$6` created_at, `$7` id. */
      listAfter: `SELECT ${SESSION_COLUMNS} FROM ${n.sessions} WHERE ${LISTED_SESSIONS} AND ${afterPosition(6)}
        ORDER BY ${NEWEST_FIRST} OFFSET $4 LIMIT $5`,
      count: `SELECT count(*)::bigint AS total FROM ${n.sessions} WHERE ${LISTED_SESSIONS}`,
      /** `$5` says whether to narrow by flow id, `$6` the flow id (null matches sessions without one). */
      children: `SELECT ${SESSION_COLUMNS} FROM ${n.sessions}
        WHERE parent_session_id = $1 AND user_id = $2 AND ($3::text IS NULL OR org_id = $3) AND ($4::text IS NULL OR tenant_id = $4)
          AND (NOT $5::boolean OR flow_id IS NOT DISTINCT FROM $6::text)
        ORDER BY created_at, id`,
      /**
       * `$2` whether the title is given, `$3` the title (null removes it), `$4` metadata replacing the stored
       * object (null: keep it), `$5` the metadata patch (null: none). The patch is merged into the (replaced)
       * object in this statement: its keys' values replace the stored ones where they stand, new keys follow in
       * the patch's order, and a key patched to JSON null goes. A concurrent update of the row is waited for and
       * the merge is computed again on its result (read committed re-checks an updated row), so two patches of
       * different keys both land. Values are moved as their JSON text, never re-encoded.
       */
      update: `UPDATE ${n.sessions} AS s SET
          title = CASE WHEN $2::boolean THEN $3::text ELSE s.title END,
          metadata = CASE WHEN $5::json IS NULL THEN COALESCE($4::json, s.metadata) ELSE (
            SELECT coalesce(json_object_agg(m.key, m.value ORDER BY m.side, m.ord), '{}'::json) FROM (
              SELECT b.key, coalesce(p.value, b.value) AS value, 0 AS side, b.ord
                FROM json_each(COALESCE($4::json, s.metadata)) WITH ORDINALITY AS b(key, value, ord)
                LEFT JOIN json_each($5::json) AS p(key, value) ON p.key = b.key
                WHERE p.value IS NULL OR p.value::text <> 'null'
              UNION ALL
              SELECT p.key, p.value, 1, p.ord FROM json_each($5::json) WITH ORDINALITY AS p(key, value, ord)
                WHERE p.value::text <> 'null'
                  AND NOT EXISTS (SELECT 1 FROM json_each(COALESCE($4::json, s.metadata)) AS b WHERE b.key = p.key)
            ) AS m) END
        WHERE id = $1 RETURNING ${SESSION_COLUMNS}`,
      /** Marks a removal begun (writing nothing when it already is); one row, `found`: whether the session exists. */
      markDeleting: `WITH marked AS (UPDATE ${n.sessions} SET deleting = true WHERE id = $1 AND NOT deleting)
        SELECT EXISTS (SELECT 1 FROM ${n.sessions} WHERE id = $1) AS found`,
      /** First in a removal's transaction: a second removal of the session waits, then finds nothing. */
      lockForRemoval: `SELECT id FROM ${n.sessions} WHERE id = $1 FOR UPDATE`,
      /** `$1` the session: its requests with their events, seq counters and active entries. */
      removeRequests: removeRequests(n, "session_id = $1", "OR session_id = $1"),
      /** `$1` the scope (`session` here), `$2` its id: state, content and resource rows in every bucket. */
      removeScopeData: removeScopeData(n),
      /** After {@link removeScopeData}: the counters its resource deletes left (the trigger has run). */
      removeScopeCounts: removeScopeCounts(n),
      removeRecord: `DELETE FROM ${n.sessions} WHERE id = $1`,
    },

    requests: requestSql(n),

    scopeState: {
      /** `$1` the scope (`user` or `org`), `$2` its id; see {@link removeScopeData}. */
      removeScopeData: removeScopeData(n),
      removeScopeCounts: removeScopeCounts(n),
      get: `SELECT value::text AS value, version FROM ${n.scopeState} WHERE ${SCOPE_WHERE}`,
      /** Several addresses in one read: `$1`–`$3` parallel arrays of scope, id, bucket; `ord` is the 1-based place. */
      getMany: `SELECT a.ord, t.value::text AS value, t.version
        FROM unnest($1::text[], $2::text[], $3::text[]) WITH ORDINALITY AS a(scope, scope_id, bucket, ord)
        JOIN ${n.scopeState} AS t ON t.scope = a.scope AND t.scope_id = a.scope_id AND t.bucket = a.bucket`,
      insert: `INSERT INTO ${n.scopeState} (scope, scope_id, bucket, value, version) VALUES ($1, $2, $3, $4::json, 1)
        ON CONFLICT (scope, scope_id, bucket) DO NOTHING RETURNING version`,
      updateVersion: `UPDATE ${n.scopeState} SET value = $4::json, version = version + 1 WHERE ${SCOPE_WHERE} AND version = $5 RETURNING version`,
      upsert: `INSERT INTO ${n.scopeState} AS t (scope, scope_id, bucket, value, version) VALUES ($1, $2, $3, $4::json, 1)
        ON CONFLICT (scope, scope_id, bucket) DO UPDATE SET value = EXCLUDED.value, version = t.version + 1 RETURNING version`,
      /**
       * The same three writes under a fence: the parameters above, then the request id and the fence's epoch. Each
       * answers one row: `fence_epoch` and `version` (NULL: the write did not land).
       */
      fenced: {
        insert: `WITH ${fenceCte(n.requests, 5)}, w AS (
            INSERT INTO ${n.scopeState} (scope, scope_id, bucket, value, version)
            SELECT $1::text, $2::text, $3::text, $4::json, 1 WHERE ${fenceHolds(6)}
            ON CONFLICT (scope, scope_id, bucket) DO NOTHING RETURNING version
          ) SELECT ${FENCE_EPOCH}, (SELECT version FROM w) AS version`,
        updateVersion: `WITH ${fenceCte(n.requests, 6)}, w AS (
            UPDATE ${n.scopeState} SET value = $4::json, version = version + 1
            WHERE ${SCOPE_WHERE} AND version = $5 AND ${fenceHolds(7)} RETURNING version
          ) SELECT ${FENCE_EPOCH}, (SELECT version FROM w) AS version`,
        upsert: `WITH ${fenceCte(n.requests, 5)}, w AS (
            INSERT INTO ${n.scopeState} AS t (scope, scope_id, bucket, value, version)
            SELECT $1::text, $2::text, $3::text, $4::json, 1 WHERE ${fenceHolds(6)}
            ON CONFLICT (scope, scope_id, bucket) DO UPDATE SET value = EXCLUDED.value, version = t.version + 1 RETURNING version
          ) SELECT ${FENCE_EPOCH}, (SELECT version FROM w) AS version`,
      },
    },

    resources: {
      /**
       * Taken first in a capped create's transaction, keyed by schema, scope address, prefix and leaf (`$1`): capped
       * creates under one prefix commit one after another on every host, so each one's count (a new snapshot,
       * read after the lock) sees every create before it. Other writes never take it, so they never wait on it.
       */
      capLock: "SELECT pg_advisory_xact_lock(1718382457, hashtext($1))",
      get: `SELECT ${RESOURCE_COLUMNS} FROM ${n.resources} WHERE ${KEY_WHERE} AND NOT deleted`,
      /** Creates the key, or revives its tombstone with the next version. */
      insertAbsent: `INSERT INTO ${n.resources} AS r (scope, scope_id, bucket, key, state, version, deleted, created_at, accessed_at)
        VALUES ($1, $2, $3, $4, $5::json, 1, false, $6, $6)
        ON CONFLICT (scope, scope_id, bucket, key) DO UPDATE SET state = EXCLUDED.state, version = r.version + 1, deleted = false,
          created_at = EXCLUDED.created_at, accessed_at = EXCLUDED.accessed_at
        WHERE r.deleted RETURNING version`,
      updateVersion: `UPDATE ${n.resources} SET state = $5::json, version = version + 1, accessed_at = $6
        WHERE ${KEY_WHERE} AND NOT deleted AND version = $7 RETURNING version`,
      upsert: `INSERT INTO ${n.resources} AS r (scope, scope_id, bucket, key, state, version, deleted, created_at, accessed_at)
        VALUES ($1, $2, $3, $4, $5::json, 1, false, $6, $6)
        ON CONFLICT (scope, scope_id, bucket, key) DO UPDATE SET state = EXCLUDED.state, version = r.version + 1, deleted = false,
          created_at = CASE WHEN r.deleted THEN EXCLUDED.created_at ELSE r.created_at END, accessed_at = EXCLUDED.accessed_at
        RETURNING version`,
      /** Tombstones the live value (guarded by `$5` unless null) and drops the content row in the same statement. */
      delete: `WITH d AS (
          UPDATE ${n.resources} SET deleted = true, state = NULL, version = version + 1
          WHERE ${KEY_WHERE} AND NOT deleted AND ($5::bigint IS NULL OR version = $5::bigint) RETURNING version
        ), c AS (
          DELETE FROM ${n.contents} WHERE ${KEY_WHERE} AND (EXISTS (SELECT 1 FROM d) OR $5::bigint IS NULL)
        )
        SELECT version FROM d`,
      /** The version a key has reached, tombstone included. */
      lastVersion: `SELECT version FROM ${n.resources} WHERE ${KEY_WHERE}`,
      touch: `UPDATE ${n.resources} SET accessed_at = $5 WHERE ${KEY_WHERE} AND NOT deleted`,
      /** A page in key order from the live-key index: `$4` low bound, `$5` offset, `$6` limit (null: all). */
      pageFrom: page(n, "plain", ">="),
      /** The same, bounded above by `$7`. */
      pageRange: page(n, "plain", ">=", true),
      /**
       * The `leaf` pages: the leaf index holds live keys by (depth, key), so the keys with `$7` slashes
       * in `[$4, $8)` are one index range, already in key order. Same parameters as above, depth `$7`.
       */
      pageLeafFrom: page(n, "leaf", ">="),
      pageLeafRange: page(n, "leaf", ">=", true),
      /**
       * Keyset pages (`ListOptions.after`): the same four with the low bound `$4` exclusive, for a position
       * at or past the prefix's start. The index range starts right after it, whatever its depth in the list.
       */
      pageAfterFrom: page(n, "plain", ">"),
      pageAfterRange: page(n, "plain", ">", true),
      pageLeafAfterFrom: page(n, "leaf", ">"),
      pageLeafAfterRange: page(n, "leaf", ">", true),
      /** `leaf` counts walk the same index range (`$4` low, `$5` depth, `$6` high) without reading a row. */
      countLeafFrom: `SELECT count(*)::bigint AS live FROM ${n.resources}
        WHERE ${SCOPE_WHERE} AND NOT deleted AND ${n.keyDepthFunction}(key) = $5::integer AND key >= $4`,
      countLeafRange: `SELECT count(*)::bigint AS live FROM ${n.resources}
        WHERE ${SCOPE_WHERE} AND NOT deleted AND ${n.keyDepthFunction}(key) = $5::integer AND key >= $4 AND key < $6`,
      countCounter: `SELECT live FROM ${n.counts} WHERE ${SCOPE_WHERE} AND prefix = $4`,
      /** A `leaf` count of `""` or a prefix ending in `/`: the counter of the keys directly in that folder. */
      countLeafCounter: `SELECT leaf AS live FROM ${n.counts} WHERE ${SCOPE_WHERE} AND prefix = $4`,
      countFrom: `SELECT count(*)::bigint AS live FROM ${n.resources} WHERE ${SCOPE_WHERE} AND NOT deleted AND key >= $4`,
      countRange: `SELECT count(*)::bigint AS live FROM ${n.resources} WHERE ${SCOPE_WHERE} AND NOT deleted AND key >= $4 AND key < $5`,
      getContent: `SELECT body FROM ${n.contents} WHERE ${KEY_WHERE}`,
      putContent: `INSERT INTO ${n.contents} (scope, scope_id, bucket, key, body) VALUES ($1, $2, $3, $4, $5)
        ON CONFLICT (scope, scope_id, bucket, key) DO UPDATE SET body = EXCLUDED.body`,
      deleteContent: `DELETE FROM ${n.contents} WHERE ${KEY_WHERE}`,
      /**
       * The writes above under a fence: their parameters, then the request id and the fence's epoch. Each answers
       * one row: `fence_epoch`, and `version` where the write returns one (NULL: it did not land).
       */
      fenced: {
        /** Inside a capped create's transaction, after the cap lock: the row lock lasts until it commits. */
        lock: `SELECT coalesce(epoch, 0) AS fence_epoch FROM ${n.requests} WHERE id = $1 FOR SHARE`,
        /** The epoch alone, for a delete that writes nothing (`absent`): no write to hold the lock for. */
        read: `SELECT coalesce(epoch, 0) AS fence_epoch FROM ${n.requests} WHERE id = $1`,
        insertAbsent: `WITH ${fenceCte(n.requests, 7)}, w AS (
            INSERT INTO ${n.resources} AS r (scope, scope_id, bucket, key, state, version, deleted, created_at, accessed_at)
            SELECT $1::text, $2::text, $3::text, $4::bytea, $5::json, 1, false, $6::bigint, $6::bigint WHERE ${fenceHolds(8)}
            ON CONFLICT (scope, scope_id, bucket, key) DO UPDATE SET state = EXCLUDED.state, version = r.version + 1, deleted = false,
              created_at = EXCLUDED.created_at, accessed_at = EXCLUDED.accessed_at
            WHERE r.deleted RETURNING version
          ) SELECT ${FENCE_EPOCH}, (SELECT version FROM w) AS version`,
        updateVersion: `WITH ${fenceCte(n.requests, 8)}, w AS (
            UPDATE ${n.resources} SET state = $5::json, version = version + 1, accessed_at = $6
            WHERE ${KEY_WHERE} AND NOT deleted AND version = $7 AND ${fenceHolds(9)} RETURNING version
          ) SELECT ${FENCE_EPOCH}, (SELECT version FROM w) AS version`,
        upsert: `WITH ${fenceCte(n.requests, 7)}, w AS (
            INSERT INTO ${n.resources} AS r (scope, scope_id, bucket, key, state, version, deleted, created_at, accessed_at)
            SELECT $1::text, $2::text, $3::text, $4::bytea, $5::json, 1, false, $6::bigint, $6::bigint WHERE ${fenceHolds(8)}
            ON CONFLICT (scope, scope_id, bucket, key) DO UPDATE SET state = EXCLUDED.state, version = r.version + 1, deleted = false,
              created_at = CASE WHEN r.deleted THEN EXCLUDED.created_at ELSE r.created_at END, accessed_at = EXCLUDED.accessed_at
            RETURNING version
          ) SELECT ${FENCE_EPOCH}, (SELECT version FROM w) AS version`,
        delete: `WITH ${fenceCte(n.requests, 6)}, d AS (
            UPDATE ${n.resources} SET deleted = true, state = NULL, version = version + 1
            WHERE ${KEY_WHERE} AND NOT deleted AND ($5::bigint IS NULL OR version = $5::bigint) AND ${fenceHolds(7)} RETURNING version
          ), c AS (
            DELETE FROM ${n.contents} WHERE ${KEY_WHERE} AND (EXISTS (SELECT 1 FROM d) OR $5::bigint IS NULL) AND ${fenceHolds(7)}
          ) SELECT ${FENCE_EPOCH}, (SELECT version FROM d) AS version`,
        putContent: `WITH ${fenceCte(n.requests, 6)}, w AS (
            INSERT INTO ${n.contents} (scope, scope_id, bucket, key, body)
            SELECT $1::text, $2::text, $3::text, $4::bytea, $5::text WHERE ${fenceHolds(7)}
            ON CONFLICT (scope, scope_id, bucket, key) DO UPDATE SET body = EXCLUDED.body
          ) SELECT ${FENCE_EPOCH}`,
        deleteContent: `WITH ${fenceCte(n.requests, 5)}, w AS (
            DELETE FROM ${n.contents} WHERE ${KEY_WHERE} AND ${fenceHolds(6)}
          ) SELECT ${FENCE_EPOCH}`,
      },
    },
    schedules: {
      /** Serializes claims of one schedule's ticks across hosts (`$1` flow id, `$2` schedule), until the transaction ends. */
      lock: "SELECT pg_advisory_xact_lock(1718382456, hashtext($1 || '/' || $2))",
      /** `$3` the tick's time; the newest tick of the schedule comes along as `newest_at`. */
      tick: `SELECT ${TICK_COLUMNS}, (SELECT max(at) FROM ${n.scheduleTicks} WHERE ${SCHEDULE_WHERE}) AS newest_at
        FROM (SELECT 1) AS one LEFT JOIN ${n.scheduleTicks} ON ${SCHEDULE_WHERE} AND at = $3`,
      insert: `INSERT INTO ${n.scheduleTicks} (flow_id, schedule, at, claim_host, claim_until, epoch)
        VALUES ($1, $2, $3, $4, $5, 1) RETURNING ${TICK_COLUMNS}`,
      /** A take-over: only while the tick is still unfired at the epoch read (`$6`). */
      takeOver: `UPDATE ${n.scheduleTicks} SET claim_host = $4, claim_until = $5, epoch = epoch + 1
        WHERE ${SCHEDULE_WHERE} AND at = $3 AND epoch = $6 AND request_id IS NULL RETURNING ${TICK_COLUMNS}`,
      /** Fired ticks older than `$3` (the schedule's newest): nothing needs them any more. */
      prune: `DELETE FROM ${n.scheduleTicks} WHERE ${SCHEDULE_WHERE} AND at < $3 AND request_id IS NOT NULL`,
      /** One statement: the row lock settles it against a take-over. `$4` the epoch, `$5` the request id. */
      fire: `UPDATE ${n.scheduleTicks} SET request_id = $5
        WHERE ${SCHEDULE_WHERE} AND at = $3 AND epoch = $4 AND request_id IS NULL RETURNING epoch`,
      get: `SELECT ${TICK_COLUMNS} FROM ${n.scheduleTicks} WHERE ${SCHEDULE_WHERE} AND at = $3`,
      latest: `SELECT ${TICK_COLUMNS} FROM ${n.scheduleTicks} WHERE ${SCHEDULE_WHERE} ORDER BY at DESC LIMIT 1`,
    },
  };
}

export type StoreSql = ReturnType<typeof buildSql>;
