/**
 * Every SQL statement the stores run, built once per store for its schema. Statements are single
 * and parameterised; compare-and-swap writes guard on the version column inside the statement, so
 * the database settles races between hosts.
 */
import { createHash } from "node:crypto";

/** Quotes an identifier for SQL text. */
export function quoteIdent(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

export interface TableNames {
  schema: string;
  migrations: string;
  sessions: string;
  requests: string;
  events: string;
  eventSeq: string;
  active: string;
  scopeState: string;
  resources: string;
  contents: string;
  counts: string;
  countFunction: string;
  /** `key_depth(key bytea)`: how many `/` an encoded key holds (see migration 3). */
  keyDepthFunction: string;
  /** Schedule ticks (see migration 8). */
  scheduleTicks: string;
  /** NOTIFY channel for appended events: a plain identifier, the same on every host using the schema. */
  channel: string;
}

export function tableNames(schema: string): TableNames {
  const q = (table: string) => `${quoteIdent(schema)}.${quoteIdent(table)}`;
  const digest = createHash("sha256").update(schema).digest("hex").slice(0, 16);
  return {
    schema: quoteIdent(schema),
    migrations: q("flowrt_migrations"),
    sessions: q("flowrt_sessions"),
    requests: q("flowrt_requests"),
    events: q("flowrt_request_events"),
    eventSeq: q("flowrt_request_event_seq"),
    active: q("flowrt_active_requests"),
    scopeState: q("flowrt_scope_state"),
    resources: q("flowrt_resources"),
    contents: q("flowrt_resource_contents"),
    counts: q("flowrt_resource_counts"),
    countFunction: q("flowrt_resources_count"),
    keyDepthFunction: q("flowrt_key_depth"),
    scheduleTicks: q("flowrt_schedule_ticks"),
    channel: `flowrt_events_${digest}`,
  };
}

const SESSION_COLUMNS =
  "id, flow_id, flow_kind, user_id, org_id, tenant_id, parent_session_id, root_session_id, title, metadata::text AS metadata, " +
  "created_at, deleting";

/**
 * Newest first, compared bytewise whatever the database's collation (the order of migration 6's indexes): a
 * keyset position `(created_at, id)` starts one index range.
 */
const NEWEST_FIRST = `created_at COLLATE "C" DESC, id COLLATE "C" DESC`;
/** Rows after the keyset position (`$<c>` created_at, `$<c + 1>` id) in {@link NEWEST_FIRST} order. */
const afterPosition = (c: number) =>
  `(created_at COLLATE "C", id COLLATE "C") < ($${c}::text, $${c + 1}::text)`;

/** The sessions a listing shows: not being removed; `$1` user, `$2` org, `$3` flow ids (each null for no filter). */
const LISTED_SESSIONS =
  "NOT deleting AND ($1::text IS NULL OR user_id = $1) AND ($2::text IS NULL OR org_id = $2) " +
  "AND ($3::text[] IS NULL OR flow_id = ANY($3::text[]))";

const REQUEST_COLUMNS =
  "id, session_id, flow_id, flow_kind, action, user_id, org_id, status, input::text AS input, output::text AS output, " +
  "error::text AS error, metadata::text AS metadata, durable, claim_host, claim_until, epoch, version, created_at, started_at, completed_at";

const RESOURCE_COLUMNS = "key, state::text AS state, version, created_at, accessed_at";

const TERMINAL = "('completed', 'failed', 'aborted')";

/**
 * A request update's SET list: `$3`–`$15`, each optional field as a "given" flag and a value, so that a patch can
 * set a JSON null or release the claim; the version grows by one.
 */
const REQUEST_PATCH = `status = COALESCE($3::text, status),
          output = CASE WHEN $4::boolean THEN $5::json ELSE output END,
          error = CASE WHEN $6::boolean THEN $7::json ELSE error END,
          metadata = COALESCE($8::json, metadata),
          claim_host = CASE WHEN $9::boolean THEN $10::text ELSE claim_host END,
          claim_until = CASE WHEN $9::boolean THEN $11::bigint ELSE claim_until END,
          started_at = COALESCE($12::text, started_at),
          completed_at = COALESCE($13::text, completed_at),
          completed_ms = CASE WHEN $13::text IS NULL THEN completed_ms ELSE $14::bigint END,
          epoch = COALESCE($15::bigint, epoch),
          version = version + 1`;

const TICK_COLUMNS = "flow_id, schedule, at, claim_host, claim_until, epoch, request_id";
const SCHEDULE_WHERE = "flow_id = $1 AND schedule = $2";

const SCOPE_WHERE = "scope = $1 AND scope_id = $2 AND bucket = $3";
const KEY_WHERE = `${SCOPE_WHERE} AND key = $4`;

/**
 * The head of a fenced write (see `fence.ts`): the request's row (id `$<r>`), read FOR SHARE. The lock is held
 * until the write commits, and a claim is an UPDATE of that row, which waits for it: no claim commits between
 * this check and the write. (FOR KEY SHARE would not do: a claim changes no key column, so its UPDATE takes FOR NO
 * KEY UPDATE, which FOR KEY SHARE lets through.) A claim that committed before the lock is seen: read committed
 * re-reads a row updated meanwhile. MATERIALIZED: read once, shared by the write and the statement's answer.
 */
const fenceCte = (requests: string, r: number) =>
  `fence AS MATERIALIZED (SELECT coalesce(epoch, 0) AS epoch FROM ${requests} WHERE id = $${r} FOR SHARE)`;

/** The fenced write's own condition: the request exists and no claim newer than epoch `$<e>` has been made. */
const fenceHolds = (e: number) => `EXISTS (SELECT 1 FROM fence WHERE epoch <= $${e}::bigint)`;

/** A fenced statement's answer, always one row: the stored epoch (NULL: no such request), and what it returns. */
const FENCE_EPOCH = "(SELECT epoch FROM fence) AS fence_epoch";

/**
 * A page of live resources in key order: `$1`–`$3` the scope address, `$4` the low bound (`>=`, or `>` for a keyset
 * position), `$5` offset, `$6` limit (null: all); a `leaf` page takes the depth as `$7`; `bounded` adds the high
 * bound (`$7`, or `$8` on a leaf page). Plain pages walk the live-key index, leaf pages the leaf index.
 */
function page(n: TableNames, kind: "plain" | "leaf", low: ">=" | ">", bounded = false): string {
  const leaf = kind === "leaf";
  const depth = leaf ? ` AND ${n.keyDepthFunction}(key) = $7::integer` : "";
  const high = bounded ? ` AND key < $${leaf ? 8 : 7}` : "";
  return `SELECT ${RESOURCE_COLUMNS} FROM ${n.resources}
        WHERE ${SCOPE_WHERE} AND NOT deleted${depth} AND key ${low} $4${high} ORDER BY key OFFSET $5 LIMIT $6`;
}

/**
 * Deletes the requests matching `where` with their event logs, seq counters and active entries (those of the
 * deleted requests, and those matching `activeToo`), in one statement. One row: `requests` and `events` removed.
 */
function removeRequests(n: TableNames, where: string, activeToo: string): string {
  return `WITH removed AS (DELETE FROM ${n.requests} WHERE ${where} RETURNING id),
      events AS (DELETE FROM ${n.events} WHERE request_id IN (SELECT id FROM removed) RETURNING 1),
      seqs AS (DELETE FROM ${n.eventSeq} WHERE request_id IN (SELECT id FROM removed)),
      active AS (DELETE FROM ${n.active} WHERE request_id IN (SELECT id FROM removed) ${activeToo})
    SELECT (SELECT count(*) FROM removed)::bigint AS requests, (SELECT count(*) FROM events)::bigint AS events`;
}

/**
 * Deletes one scope's rows (`$1` scope, `$2` scope id) in every bucket: state, content and resources, tombstones
 * included, each through its primary key's leading columns. One row: `states`, `contents`, `resources` removed.
 * The resources' count trigger runs as the statement ends; {@link removeScopeCounts} then drops the counters.
 */
function removeScopeData(n: TableNames): string {
  const where = "scope = $1 AND scope_id = $2";
  return `WITH states AS (DELETE FROM ${n.scopeState} WHERE ${where} RETURNING 1),
      contents AS (DELETE FROM ${n.contents} WHERE ${where} RETURNING 1),
      resources AS (DELETE FROM ${n.resources} WHERE ${where} RETURNING 1)
    SELECT (SELECT count(*) FROM states)::bigint AS states, (SELECT count(*) FROM contents)::bigint AS contents,
      (SELECT count(*) FROM resources)::bigint AS resources`;
}

/**
 * The scope's counters that count nothing any more. A counter a concurrent write to the scope has just raised is
 * kept (a DELETE re-checks a row updated meanwhile), so the counters stay exact for a key written during the removal.
 */
function removeScopeCounts(n: TableNames): string {
  return `DELETE FROM ${n.counts} WHERE scope = $1 AND scope_id = $2 AND live = 0`;
}

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

    requests: {
      insert: `INSERT INTO ${n.requests} (id, session_id, flow_id, flow_kind, action, user_id, org_id, status, input, output, error, metadata,
          durable, claim_host, claim_until, version, created_at, started_at, completed_at, completed_ms, epoch)
        VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9::json, $10::json, $11::json, $12::json, $13, $14, $15, $16, $17, $18, $19, $20, $21)
        ON CONFLICT (id) DO NOTHING RETURNING id`,
      /**
       * {@link insert} with the request's own new session (`$22`–`$32`: the session insert's `$1`–`$11`), in one
       * statement: the session only when its id is free, the request only with it. The request insert has no
       * ON CONFLICT here: a taken request id fails the whole statement (unique violation), leaving no session.
       */
      insertWithSession: `WITH s AS (
          INSERT INTO ${n.sessions} (id, flow_id, flow_kind, user_id, org_id, tenant_id, parent_session_id, root_session_id, title, metadata, created_at)
          VALUES ($22, $23, $24, $25, $26, $27, $28, $29, $30, $31::json, $32) ON CONFLICT (id) DO NOTHING RETURNING id
        )
        INSERT INTO ${n.requests} (id, session_id, flow_id, flow_kind, action, user_id, org_id, status, input, output, error, metadata,
          durable, claim_host, claim_until, version, created_at, started_at, completed_at, completed_ms, epoch)
        SELECT $1, $2, $3, $4, $5, $6, $7, $8, $9::json, $10::json, $11::json, $12::json, $13, $14, $15, $16, $17, $18, $19, $20, $21
        FROM s RETURNING id`,
      get: `SELECT ${REQUEST_COLUMNS} FROM ${n.requests} WHERE id = $1`,
      /**
       * {@link update} with its effects, in one statement, each only when the update applied: `$16` whether the
       * active entry is set (`$17`–`$22`: session, flow, user, org, action, started at), `$23` whether it is
       * cleared, `$24`–`$26` the events' types, times and data (parallel arrays; empty: none), `$27` the
       * notification channel, `$28` the id it names. The events take the next seqs from the request's counter row
       * and notify once, with the last. One row when the update applied: the new `version` and the events' `last_seq`.
       */
      updateWithEffects: `WITH u AS (
          UPDATE ${n.requests} SET
          ${REQUEST_PATCH}
          WHERE id = $1 AND version = $2 RETURNING version
        ), entered AS (
          INSERT INTO ${n.active} (request_id, session_id, flow_id, user_id, org_id, action, started_at)
          SELECT $1, $17, $18, $19, $20, $21, $22 FROM u WHERE $16::boolean
          ON CONFLICT (request_id) DO UPDATE SET session_id = EXCLUDED.session_id, flow_id = EXCLUDED.flow_id,
            user_id = EXCLUDED.user_id, org_id = EXCLUDED.org_id, action = EXCLUDED.action, started_at = EXCLUDED.started_at
        ), left_active AS (
          DELETE FROM ${n.active} WHERE $23::boolean AND request_id = $1 AND EXISTS (SELECT 1 FROM u)
        ), next AS (
          INSERT INTO ${n.eventSeq} AS s (request_id, last_seq)
          SELECT $1, cardinality($24::text[]) FROM u WHERE cardinality($24::text[]) > 0
          ON CONFLICT (request_id) DO UPDATE SET last_seq = s.last_seq + EXCLUDED.last_seq RETURNING last_seq
        ), ins AS (
          INSERT INTO ${n.events} (request_id, seq, type, at, data)
          SELECT $1, next.last_seq - cardinality($24::text[]) + e.ord, e.type, e.at, e.data::json
          FROM next, unnest($24::text[], $25::text[], $26::text[]) WITH ORDINALITY AS e(type, at, data, ord)
        )
        SELECT u.version, (SELECT last_seq FROM next) AS last_seq,
          (SELECT pg_notify($27::text, last_seq::text || ':' || $28::text) FROM next)::text AS notified
        FROM u`,
      /**
       * The compare-and-swap update. Each optional field comes as a "given" flag and a value, so a
       * patch can set a JSON null or release the claim; a status change and a claim land together.
       */
      update: `UPDATE ${n.requests} SET
          ${REQUEST_PATCH}
        WHERE id = $1 AND version = $2 RETURNING ${REQUEST_COLUMNS}`,
      /** A session's requests newest first (`$1` session, `$2` limit). */
      listBySession: `SELECT ${REQUEST_COLUMNS} FROM ${n.requests} WHERE session_id = $1 ORDER BY ${NEWEST_FIRST} LIMIT $2`,
      /** The same after a keyset position: `$3` created_at, `$4` id. */
      listBySessionAfter: `SELECT ${REQUEST_COLUMNS} FROM ${n.requests} WHERE session_id = $1 AND ${afterPosition(3)}
        ORDER BY ${NEWEST_FIRST} LIMIT $2`,
      /** `$1` the user, `$2` an org to narrow to (null: any). */
      removeByUser: removeRequests(n, "user_id = $1 AND ($2::text IS NULL OR org_id = $2)", ""),
      listByStatus: `SELECT ${REQUEST_COLUMNS} FROM ${n.requests}
        WHERE status = ANY($1::text[]) AND (NOT $2::boolean OR durable) ORDER BY created_at, id LIMIT $3`,
      /**
       * Takes the next seq from a per-request counter row (its row lock orders concurrent appends, so
       * seqs commit in order without gaps), stores the event and notifies in the same statement;
       * the notification goes out on commit, when the row is visible to other hosts.
       */
      /**
       * `$7`: whether the event is a terminal one (\`request.<terminal status>\`). Any other event is appended only
       * while the request's stored status is not terminal. The request row is read FOR SHARE: an abort committing
       * meanwhile is waited for and then seen, and one committing after waits for this append, whose seq then
       * comes before the abort's terminal event. Nothing of a run another host aborted follows \`request.aborted\`.
       */
      appendEvent: `WITH request AS (
          SELECT status FROM ${n.requests} WHERE id = $1 FOR SHARE
        ), next AS (
          INSERT INTO ${n.eventSeq} AS s (request_id, last_seq)
          SELECT $1, 1 WHERE $7::boolean OR NOT EXISTS (SELECT 1 FROM request WHERE status IN ${TERMINAL})
          ON CONFLICT (request_id) DO UPDATE SET last_seq = s.last_seq + 1 RETURNING last_seq
        ), ins AS (
          INSERT INTO ${n.events} (request_id, seq, type, at, data) SELECT $1, last_seq, $2, $3, $4::json FROM next RETURNING seq
        )
        SELECT seq, pg_notify($5::text, seq::text || ':' || $6::text)::text AS notified FROM ins`,
      /**
       * `appendEvent` under a fence (`$8` the fenced request, the event's own in practice; `$9` the epoch). One row:
       * `fence_epoch` (NULL: no such request), `seq` (NULL: nothing appended).
       */
      appendEventFenced: `WITH ${fenceCte(n.requests, 8)}, request AS MATERIALIZED (
          SELECT status FROM ${n.requests} WHERE id = $1 FOR SHARE
        ), next AS (
          INSERT INTO ${n.eventSeq} AS s (request_id, last_seq)
          SELECT $1, 1 WHERE ${fenceHolds(9)} AND ($7::boolean OR NOT EXISTS (SELECT 1 FROM request WHERE status IN ${TERMINAL}))
          ON CONFLICT (request_id) DO UPDATE SET last_seq = s.last_seq + 1 RETURNING last_seq
        ), ins AS (
          INSERT INTO ${n.events} (request_id, seq, type, at, data) SELECT $1, last_seq, $2, $3, $4::json FROM next RETURNING seq
        )
        SELECT ${FENCE_EPOCH}, (SELECT seq FROM ins) AS seq,
          (SELECT pg_notify($5::text, seq::text || ':' || $6::text) FROM ins)::text AS notified`,
      readEvents: `SELECT seq, type, request_id, at, data::text AS data FROM ${n.events}
        WHERE request_id = $1 AND seq > $2 ORDER BY seq LIMIT $3`,
      lastSeq: `SELECT last_seq FROM ${n.eventSeq} WHERE request_id = $1`,
      markActive: `INSERT INTO ${n.active} (request_id, session_id, flow_id, user_id, org_id, action, started_at)
        VALUES ($1, $2, $3, $4, $5, $6, $7)
        ON CONFLICT (request_id) DO UPDATE SET session_id = EXCLUDED.session_id, flow_id = EXCLUDED.flow_id, user_id = EXCLUDED.user_id,
          org_id = EXCLUDED.org_id, action = EXCLUDED.action, started_at = EXCLUDED.started_at`,
      clearActive: `DELETE FROM ${n.active} WHERE request_id = $1`,
      listActive: `SELECT request_id, session_id, flow_id, user_id, org_id, action, started_at FROM ${n.active}
        WHERE ($1::text IS NULL OR user_id = $1) AND ($2::text[] IS NULL OR flow_id = ANY($2::text[])) ORDER BY started_at, request_id`,
      /**
       * Taken first in a purge's transaction: purges from several hosts run one after another. Run at once, their
       * deletes lock overlapping rows in different orders (by age, by rank) and deadlock (40P01).
       */
      purgeLock: `SELECT pg_advisory_xact_lock(1718382456, hashtext('${n.schema.replaceAll("'", "''")}'))`,
      /** `$1` cutoff in ms (null: no age limit), `$2` how many finished requests to keep (null: no count limit). */
      purge: `WITH doomed AS (
          SELECT id FROM ${n.requests} WHERE status IN ${TERMINAL} AND (
            ($1::bigint IS NOT NULL AND completed_ms < $1::bigint)
            OR ($2::bigint IS NOT NULL AND id IN (
              SELECT id FROM ${n.requests} WHERE status IN ${TERMINAL} ORDER BY completed_ms DESC NULLS LAST, id DESC OFFSET $2::bigint)))
        ), events AS (DELETE FROM ${n.events} WHERE request_id IN (SELECT id FROM doomed)),
        seqs AS (DELETE FROM ${n.eventSeq} WHERE request_id IN (SELECT id FROM doomed)),
        active AS (DELETE FROM ${n.active} WHERE request_id IN (SELECT id FROM doomed)),
        removed AS (DELETE FROM ${n.requests} WHERE id IN (SELECT id FROM doomed) RETURNING id, session_id)
        SELECT count(*)::bigint AS removed, coalesce(array_agg(DISTINCT session_id), '{}') AS sessions FROM removed`,
      /**
       * `$1` the sessions of purged requests: those marked `ephemeral: true` (the JSON value) with no request
       * left go. Their ids are returned, for {@link retireSessionData}. A metadata text holding the escape
       * `\u0000` (valid JSON, which a `json` column keeps as written) cannot be read with PostgreSQL's JSON
       * operators (error 22P05, which would fail every purge from then on): such a session is not read, and
       * kept. `CASE` fixes the order, so the operators never see it.
       */
      retireSessions: `DELETE FROM ${n.sessions} s WHERE s.id = ANY($1::text[])
          AND CASE WHEN strpos(s.metadata::text, '\\u0000') > 0 THEN false
            ELSE json_typeof(s.metadata->'ephemeral') = 'boolean' AND (s.metadata->>'ephemeral') = 'true' END
          AND NOT EXISTS (SELECT 1 FROM ${n.requests} r WHERE r.session_id = s.id)
        RETURNING s.id`,
      /** The session-scope rows of retired sessions (`$1`), in every bucket; counters after the resources' trigger. */
      retireSessionData: [
        `DELETE FROM ${n.scopeState} WHERE scope = 'session' AND scope_id = ANY($1::text[])`,
        `DELETE FROM ${n.contents} WHERE scope = 'session' AND scope_id = ANY($1::text[])`,
        `DELETE FROM ${n.resources} WHERE scope = 'session' AND scope_id = ANY($1::text[])`,
        `DELETE FROM ${n.counts} WHERE scope = 'session' AND scope_id = ANY($1::text[]) AND live = 0`,
      ],
    },

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
