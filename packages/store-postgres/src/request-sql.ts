/**
 * The statements of the request store: records, their compare-and-swap updates (with the active entry and events
 * written in the same statement), event logs, the active registry and retention. One statement per call, each
 * atomic on its own.
 */
import {
  afterPosition,
  FENCE_EPOCH,
  fenceCte,
  fenceHolds,
  NEWEST_FIRST,
  REQUEST_COLUMNS,
  REQUEST_PATCH,
  removeRequests,
  type TableNames,
  TERMINAL,
} from "./sql-fragments.js";

export function requestSql(n: TableNames) {
  return {
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
  };
}
