/**
 * The ordered schema migrations. Append new ones at the end with the next id; never edit one that
 * has shipped. `runMigrations` applies the missing ones in one transaction under an advisory lock,
 * so two hosts starting together apply each migration once.
 */
import type { PostgresDriver } from "./driver.js";
import type { StoreSql, TableNames } from "./sql.js";

export interface Migration {
  id: number;
  name: string;
  statements: (n: TableNames) => string[];
}

const SCOPE_COLUMNS = "scope text NOT NULL, scope_id text NOT NULL, bucket text NOT NULL";

export const MIGRATIONS: readonly Migration[] = [
  {
    id: 1,
    name: "sessions and requests",
    statements: (n) => [
      `CREATE TABLE ${n.sessions} (
        id text PRIMARY KEY, flow_id text, flow_kind text NOT NULL, user_id text NOT NULL, org_id text, tenant_id text,
        parent_session_id text, root_session_id text NOT NULL, title text, metadata json NOT NULL, created_at text NOT NULL)`,
      `CREATE INDEX ON ${n.sessions} (user_id, created_at DESC, id DESC)`,
      `CREATE INDEX ON ${n.sessions} (parent_session_id, created_at, id) WHERE parent_session_id IS NOT NULL`,
      `CREATE TABLE ${n.requests} (
        id text PRIMARY KEY, session_id text NOT NULL, flow_id text NOT NULL, flow_kind text NOT NULL, action text NOT NULL,
        user_id text NOT NULL, org_id text, status text NOT NULL, input json, output json, error json, metadata json NOT NULL,
        durable boolean NOT NULL, claim_host text, claim_until bigint, version bigint NOT NULL, created_at text NOT NULL,
        started_at text, completed_at text, completed_ms bigint)`,
      // completed_ms: completedAt in ms since epoch (createdAt until there is one), for retention.
      `CREATE INDEX ON ${n.requests} (status, created_at, id)`,
      `CREATE INDEX ON ${n.requests} (completed_ms DESC, id DESC) WHERE status IN ('completed', 'failed', 'aborted')`,
      `CREATE TABLE ${n.eventSeq} (request_id text PRIMARY KEY, last_seq bigint NOT NULL)`,
      `CREATE TABLE ${n.events} (
        request_id text NOT NULL, seq bigint NOT NULL, type text NOT NULL, at text NOT NULL, data json NOT NULL,
        PRIMARY KEY (request_id, seq))`,
      `CREATE TABLE ${n.active} (
        request_id text PRIMARY KEY, session_id text NOT NULL, flow_id text NOT NULL, user_id text NOT NULL, org_id text,
        action text NOT NULL, started_at text NOT NULL)`,
    ],
  },
  {
    id: 2,
    name: "scope state and resources",
    statements: (n) => [
      `CREATE TABLE ${n.scopeState} (${SCOPE_COLUMNS}, value json NOT NULL, version bigint NOT NULL, PRIMARY KEY (scope, scope_id, bucket))`,
      // Keys are UTF-16BE bytes (see key-codec.ts), so the primary key's order is the contract's key order.
      `CREATE TABLE ${n.resources} (${SCOPE_COLUMNS}, key bytea NOT NULL, state json, version bigint NOT NULL,
        deleted boolean NOT NULL, created_at bigint NOT NULL, accessed_at bigint NOT NULL, PRIMARY KEY (scope, scope_id, bucket, key))`,
      // Pages and counts walk live keys only, without visiting tombstones or reading state.
      `CREATE INDEX flowrt_resources_live ON ${n.resources} (scope, scope_id, bucket, key) WHERE NOT deleted`,
      `CREATE TABLE ${n.contents} (${SCOPE_COLUMNS}, key bytea NOT NULL, body text NOT NULL, PRIMARY KEY (scope, scope_id, bucket, key))`,
      // Live-key counts for "" and every prefix ending in "/", kept by trigger so count() of a
      // collection is one row read however many items it holds.
      `CREATE TABLE ${n.counts} (${SCOPE_COLUMNS}, prefix bytea NOT NULL, live bigint NOT NULL, PRIMARY KEY (scope, scope_id, bucket, prefix))`,
      `CREATE FUNCTION ${n.countFunction}() RETURNS trigger LANGUAGE plpgsql AS $fn$
      DECLARE
        row_key bytea;
        delta bigint;
      BEGIN
        IF TG_OP = 'DELETE' THEN
          row_key := OLD.key; delta := -1;
        ELSE
          row_key := NEW.key; delta := CASE WHEN NEW.deleted THEN -1 ELSE 1 END;
        END IF;
        -- Ascending prefix order, so concurrent writers lock counter rows in the same order.
        INSERT INTO ${n.counts} AS c (scope, scope_id, bucket, prefix, live)
        SELECT COALESCE(NEW.scope, OLD.scope), COALESCE(NEW.scope_id, OLD.scope_id), COALESCE(NEW.bucket, OLD.bucket), p.prefix, delta
        FROM (
          SELECT ''::bytea AS prefix
          UNION ALL
          SELECT substring(row_key FROM 1 FOR i + 2) FROM generate_series(0, length(row_key) - 2, 2) AS i
          WHERE get_byte(row_key, i) = 0 AND get_byte(row_key, i + 1) = 47
        ) AS p
        ORDER BY p.prefix
        ON CONFLICT (scope, scope_id, bucket, prefix) DO UPDATE SET live = c.live + EXCLUDED.live;
        RETURN NULL;
      END
      $fn$`,
      `CREATE TRIGGER flowrt_resources_count_insert AFTER INSERT ON ${n.resources}
        FOR EACH ROW WHEN (NOT NEW.deleted) EXECUTE FUNCTION ${n.countFunction}()`,
      `CREATE TRIGGER flowrt_resources_count_update AFTER UPDATE ON ${n.resources}
        FOR EACH ROW WHEN (OLD.deleted IS DISTINCT FROM NEW.deleted) EXECUTE FUNCTION ${n.countFunction}()`,
      `CREATE TRIGGER flowrt_resources_count_delete AFTER DELETE ON ${n.resources}
        FOR EACH ROW WHEN (NOT OLD.deleted) EXECUTE FUNCTION ${n.countFunction}()`,
    ],
  },
  {
    id: 3,
    name: "leaf listing",
    statements: (n) => [
      // How many "/" (UTF-16BE 00 2F, at an even offset) an encoded key holds. Immutable, so it can
      // be indexed; it runs when a row enters the index, never when a page is read.
      `CREATE FUNCTION ${n.keyDepthFunction}(key bytea) RETURNS integer LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $fn$
        SELECT count(*)::integer FROM generate_series(0, length(key) - 2, 2) AS i
        WHERE get_byte(key, i) = 0 AND get_byte(key, i + 1) = 47
      $fn$`,
      // A leaf listing wants the keys starting with a prefix that have no "/" after it: exactly the
      // keys with as many "/" as the prefix that start with it, one range of this index.
      `CREATE INDEX flowrt_resources_leaf ON ${n.resources} (scope, scope_id, bucket, ${n.keyDepthFunction}(key), key) WHERE NOT deleted`,
    ],
  },
  {
    id: 4,
    name: "requests by session",
    statements: (n) => [
      // Retention asks whether a purged request's ephemeral session has any request left.
      `CREATE INDEX flowrt_requests_session ON ${n.requests} (session_id)`,
    ],
  },
  {
    id: 5,
    name: "request claim epoch",
    statements: (n) => [
      // The epoch of a request's latest claim (NULL: none yet, read as 0), which fenced writes are checked
      // against. Nullable without a default, so adding it rewrites no row.
      `ALTER TABLE ${n.requests} ADD COLUMN epoch bigint`,
    ],
  },
  {
    id: 6,
    name: "session removal and keyset listing",
    statements: (n) => [
      // Set by markDeleting: a removal has begun. A constant default, so adding it rewrites no row.
      `ALTER TABLE ${n.sessions} ADD COLUMN deleting boolean NOT NULL DEFAULT false`,
      // Listings leave deleting sessions out and page newest first by (created_at, id), compared bytewise
      // (COLLATE "C") whatever the database's collation, so a keyset position is one index range start. These
      // two replace migration 1's (user_id, created_at DESC, id DESC): per user, and across users.
      `CREATE INDEX flowrt_sessions_listed ON ${n.sessions}
        (user_id, created_at COLLATE "C" DESC, id COLLATE "C" DESC) WHERE NOT deleting`,
      `CREATE INDEX flowrt_sessions_listed_all ON ${n.sessions}
        (created_at COLLATE "C" DESC, id COLLATE "C" DESC) WHERE NOT deleting`,
      `DROP INDEX IF EXISTS ${n.schema}.flowrt_sessions_user_id_created_at_id_idx`,
      // A session's requests newest first (listBySession), and what retention and removal look up by session:
      // replaces migration 4's (session_id).
      `CREATE INDEX flowrt_requests_by_session ON ${n.requests}
        (session_id, created_at COLLATE "C" DESC, id COLLATE "C" DESC)`,
      `DROP INDEX IF EXISTS ${n.schema}.flowrt_requests_session`,
    ],
  },
  {
    id: 7,
    name: "leaf counters",
    statements: (n) => [
      // Writes wait while the counters are rebuilt below (SHARE blocks them, not reads), so no write commits
      // with the old trigger after the backfill has counted: the backfill and the new trigger agree exactly.
      `LOCK TABLE ${n.resources} IN SHARE MODE`,
      // The live keys whose "folder" (everything up to and including their last "/", or "" without one) is
      // exactly this prefix: a leaf count of "" or of a prefix ending in "/".
      `ALTER TABLE ${n.counts} ADD COLUMN leaf bigint NOT NULL DEFAULT 0`,
      `CREATE OR REPLACE FUNCTION ${n.countFunction}() RETURNS trigger LANGUAGE plpgsql AS $fn$
      DECLARE
        row_key bytea;
        delta bigint;
        folder_length integer;
      BEGIN
        IF TG_OP = 'DELETE' THEN
          row_key := OLD.key; delta := -1;
        ELSE
          row_key := NEW.key; delta := CASE WHEN NEW.deleted THEN -1 ELSE 1 END;
        END IF;
        -- The folder is the longest counted prefix of the key, so its leaf counter lives on a row this write
        -- already updates: no extra row lock.
        SELECT coalesce(max(i) + 2, 0) INTO folder_length FROM generate_series(0, length(row_key) - 2, 2) AS i
        WHERE get_byte(row_key, i) = 0 AND get_byte(row_key, i + 1) = 47;
        -- Ascending prefix order, so concurrent writers lock counter rows in the same order.
        INSERT INTO ${n.counts} AS c (scope, scope_id, bucket, prefix, live, leaf)
        SELECT COALESCE(NEW.scope, OLD.scope), COALESCE(NEW.scope_id, OLD.scope_id), COALESCE(NEW.bucket, OLD.bucket), p.prefix, delta,
          CASE WHEN length(p.prefix) = folder_length THEN delta ELSE 0 END
        FROM (
          SELECT ''::bytea AS prefix
          UNION ALL
          SELECT substring(row_key FROM 1 FOR i + 2) FROM generate_series(0, length(row_key) - 2, 2) AS i
          WHERE get_byte(row_key, i) = 0 AND get_byte(row_key, i + 1) = 47
        ) AS p
        ORDER BY p.prefix
        ON CONFLICT (scope, scope_id, bucket, prefix) DO UPDATE SET live = c.live + EXCLUDED.live, leaf = c.leaf + EXCLUDED.leaf;
        RETURN NULL;
      END
      $fn$`,
      // The live keys already stored, by folder. Every folder of a live key has its counter row (the trigger
      // made it with the key), so an UPDATE reaches them all.
      `UPDATE ${n.counts} AS c SET leaf = f.live
        FROM (
          SELECT r.scope, r.scope_id, r.bucket, substring(r.key FROM 1 FOR (
              SELECT coalesce(max(i) + 2, 0) FROM generate_series(0, length(r.key) - 2, 2) AS i
              WHERE get_byte(r.key, i) = 0 AND get_byte(r.key, i + 1) = 47
            )) AS folder, count(*) AS live
          FROM ${n.resources} AS r WHERE NOT r.deleted
          GROUP BY 1, 2, 3, 4
        ) AS f
        WHERE c.scope = f.scope AND c.scope_id = f.scope_id AND c.bucket = f.bucket AND c.prefix = f.folder`,
    ],
  },
  {
    id: 8,
    name: "schedule ticks",
    statements: (n) => [
      // One row per claimed tick; the primary key's order finds a schedule's newest tick in one index step.
      `CREATE TABLE ${n.scheduleTicks} (
        flow_id text NOT NULL, schedule text NOT NULL, at bigint NOT NULL, claim_host text NOT NULL,
        claim_until bigint NOT NULL, epoch bigint NOT NULL, request_id text, PRIMARY KEY (flow_id, schedule, at))`,
    ],
  },
];

/**
 * Applies the migrations not yet recorded, in order, in one transaction. The advisory lock (keyed
 * by schema) makes a second host wait and then find everything applied. Returns the ids applied.
 */
export async function runMigrations(
  driver: PostgresDriver,
  sql: StoreSql,
  names: TableNames,
  schema: string,
  migrations: readonly Migration[] = MIGRATIONS,
): Promise<number[]> {
  return driver.transaction(async (tx) => {
    await tx.query(sql.advisoryLock, [schema]);
    await tx.query(sql.createSchema);
    await tx.query(sql.createMigrations);
    const { rows } = await tx.query<{ id: number }>(sql.appliedMigrations);
    const applied = new Set(rows.map((row) => Number(row.id)));
    const done: number[] = [];
    for (const migration of [...migrations].sort((a, b) => a.id - b.id)) {
      if (applied.has(migration.id)) continue;
      for (const statement of migration.statements(names)) await tx.query(statement);
      await tx.query(sql.recordMigration, [migration.id, migration.name]);
      done.push(migration.id);
    }
    return done;
  });
}
