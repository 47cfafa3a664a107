/**
 * The table names of a schema and the SQL fragments several stores' statements share (column lists, the fence
 * head, keyset order, removals). The statements themselves: `sql.ts` and, for requests, `request-sql.ts`.
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

export const SESSION_COLUMNS =
  "id, flow_id, flow_kind, user_id, org_id, tenant_id, parent_session_id, root_session_id, title, metadata::text AS metadata, " +
  "created_at, deleting";

/**
 * Newest first, compared bytewise whatever the database's collation (the order of migration 6's indexes): a
 * keyset position `(created_at, id)` starts one index range.
 */
export const NEWEST_FIRST = `created_at COLLATE "C" DESC, id COLLATE "C" DESC`;
/** Rows after the keyset position (`$<c>` created_at, `$<c + 1>` id) in {@link NEWEST_FIRST} order. */
export const afterPosition = (c: number) =>
  `(created_at COLLATE "C", id COLLATE "C") < ($${c}::text, $${c + 1}::text)`;

/** The sessions a listing shows: not being removed; `$1` user, `$2` org, `$3` flow ids (each null for no filter). */
export const LISTED_SESSIONS =
  "NOT deleting AND ($1::text IS NULL OR user_id = $1) AND ($2::text IS NULL OR org_id = $2) " +
  "AND ($3::text[] IS NULL OR flow_id = ANY($3::text[]))";

export const REQUEST_COLUMNS =
  "id, session_id, flow_id, flow_kind, action, user_id, org_id, status, input::text AS input, output::text AS output, " +
  "error::text AS error, metadata::text AS metadata, durable, claim_host, claim_until, epoch, version, created_at, started_at, completed_at";

export const RESOURCE_COLUMNS = "key, state::text AS state, version, created_at, accessed_at";

export const TERMINAL = "('completed', 'failed', 'aborted')";

/**
 * A request update's SET list: `$3`–`$15`, each optional field as a "given" flag and a value, so that a patch can
 * set a JSON null or release the claim; the version grows by one.
 */
export const REQUEST_PATCH = `status = COALESCE($3::text, status),
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

export const TICK_COLUMNS = "flow_id, schedule, at, claim_host, claim_until, epoch, request_id";
export const SCHEDULE_WHERE = "flow_id = $1 AND schedule = $2";

export const SCOPE_WHERE = "scope = $1 AND scope_id = $2 AND bucket = $3";
export const KEY_WHERE = `${SCOPE_WHERE} AND key = $4`;

/**
 * The head of a fenced write (see `fence.ts`): the request's row (id `$<r>`), read FOR SHARE. The lock is held
 * until the write commits, and a claim is an UPDATE of that row, which waits for it: no claim commits between
 * this check and the write. (FOR KEY SHARE would not do: a claim changes no key column, so its UPDATE takes FOR NO
 * KEY UPDATE, which FOR KEY SHARE lets through.) A claim that committed before the lock is seen: read committed
 * re-reads a row updated meanwhile. MATERIALIZED: read once, shared by the write and the statement's answer.
 */
export const fenceCte = (requests: string, r: number) =>
  `fence AS MATERIALIZED (SELECT coalesce(epoch, 0) AS epoch FROM ${requests} WHERE id = $${r} FOR SHARE)`;

/** The fenced write's own condition: the request exists and no claim newer than epoch `$<e>` has been made. */
export const fenceHolds = (e: number) => `EXISTS (SELECT 1 FROM fence WHERE epoch <= $${e}::bigint)`;

/** A fenced statement's answer, always one row: the stored epoch (NULL: no such request), and what it returns. */
export const FENCE_EPOCH = "(SELECT epoch FROM fence) AS fence_epoch";

/**
 * A page of live resources in key order: `$1`–`$3` the scope address, `$4` the low bound (`>=`, or `>` for a keyset
 * position), `$5` offset, `$6` limit (null: all); a `leaf` page takes the depth as `$7`; `bounded` adds the high
 * bound (`$7`, or `$8` on a leaf page). Plain pages walk the live-key index, leaf pages the leaf index.
 */
export function page(n: TableNames, kind: "plain" | "leaf", low: ">=" | ">", bounded = false): string {
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
export function removeRequests(n: TableNames, where: string, activeToo: string): string {
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
export function removeScopeData(n: TableNames): string {
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
export function removeScopeCounts(n: TableNames): string {
  return `DELETE FROM ${n.counts} WHERE scope = $1 AND scope_id = $2 AND live = 0`;
}
