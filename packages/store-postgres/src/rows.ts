/**
 * Row ↔ record mapping. JSON columns are selected as text and parsed here, so every read returns
 * fresh objects, `null` JSON stays distinct from a missing value, and `pg` and PGlite behave alike.
 * Integer columns arrive as strings (`pg`) or numbers (PGlite); `Number()` reads both.
 */
import {
  type ActiveRequestEntry,
  FlowError,
  type JsonObject,
  type JsonValue,
  type RequestError,
  type RequestEvent,
  type RequestRecord,
  type RequestStatus,
  type ResourceStateRecord,
  type ResourceStateTextRecord,
  type SessionRecord,
} from "@flowrt/core";
import { decodeKey } from "./key-codec.js";

type Row = Record<string, unknown>;

/**
 * The JSON text of a state a store keeps (resource state, scope state): a JSON object, as the contract
 * types it. An array, a primitive or `null` is refused (`invalid-request`, as the fs store does) rather
 * than stored and read back as something else.
 */
export function stateText(value: unknown, what: string): string {
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new FlowError("invalid-request", `store-postgres: ${what} must be a JSON object.`);
  }
  return JSON.stringify(value);
}

export function toJsonText(value: unknown): string | null {
  return value === undefined ? null : JSON.stringify(value);
}

function parseJson<T>(text: unknown): T | undefined {
  return typeof text === "string" ? (JSON.parse(text) as T) : undefined;
}

function optionalText(value: unknown): string | undefined {
  return typeof value === "string" ? value : undefined;
}

export function toSession(row: Row): SessionRecord {
  const session: SessionRecord = {
    id: row.id as string,
    flowId: (row.flow_id as string | null) ?? null,
    flowKind: row.flow_kind as string,
    userId: row.user_id as string,
    rootSessionId: row.root_session_id as string,
    metadata: parseJson<JsonObject>(row.metadata) ?? {},
    createdAt: row.created_at as string,
  };
  const orgId = optionalText(row.org_id);
  if (orgId !== undefined) session.orgId = orgId;
  const tenantId = optionalText(row.tenant_id);
  if (tenantId !== undefined) session.tenantId = tenantId;
  const parent = optionalText(row.parent_session_id);
  if (parent !== undefined) session.parentSessionId = parent;
  const title = optionalText(row.title);
  if (title !== undefined) session.title = title;
  if (row.deleting === true) session.deleting = true;
  return session;
}

export function toRequest(row: Row): RequestRecord {
  const record: RequestRecord = {
    id: row.id as string,
    sessionId: row.session_id as string,
    flowId: row.flow_id as string,
    flowKind: row.flow_kind as string,
    action: row.action as string,
    userId: row.user_id as string,
    status: row.status as RequestStatus,
    input: parseJson<JsonValue>(row.input) ?? null,
    metadata: parseJson<JsonObject>(row.metadata) ?? {},
    durable: row.durable as boolean,
    version: Number(row.version),
    createdAt: row.created_at as string,
  };
  const orgId = optionalText(row.org_id);
  if (orgId !== undefined) record.orgId = orgId;
  const output = parseJson<JsonValue>(row.output);
  if (output !== undefined) record.output = output;
  const error = parseJson<RequestError>(row.error);
  if (error !== undefined) record.error = error;
  if (typeof row.claim_host === "string" && row.claim_until !== null && row.claim_until !== undefined) {
    record.claim = { hostId: row.claim_host, until: Number(row.claim_until) };
  }
  if (row.epoch !== null && row.epoch !== undefined) record.epoch = Number(row.epoch);
  const startedAt = optionalText(row.started_at);
  if (startedAt !== undefined) record.startedAt = startedAt;
  const completedAt = optionalText(row.completed_at);
  if (completedAt !== undefined) record.completedAt = completedAt;
  return record;
}

export function toEvent(row: Row): RequestEvent {
  return {
    seq: Number(row.seq),
    type: row.type as string,
    requestId: row.request_id as string,
    at: row.at as string,
    data: parseJson<JsonObject>(row.data) ?? {},
  };
}

export function toActive(row: Row): ActiveRequestEntry {
  const entry: ActiveRequestEntry = {
    requestId: row.request_id as string,
    sessionId: row.session_id as string,
    flowId: row.flow_id as string,
    userId: row.user_id as string,
    action: row.action as string,
    startedAt: row.started_at as string,
  };
  const orgId = optionalText(row.org_id);
  if (orgId !== undefined) entry.orgId = orgId;
  return entry;
}

export function toResourceState(row: Row): ResourceStateRecord {
  return {
    key: decodeKey(row.key as Uint8Array),
    state: parseJson<JsonObject>(row.state) ?? {},
    version: Number(row.version),
    createdAt: Number(row.created_at),
    accessedAt: Number(row.accessed_at),
  };
}

/** The same record with its state as the stored JSON text (`JSON.stringify` of the state as written). */
export function toResourceStateText(row: Row): ResourceStateTextRecord {
  return {
    key: decodeKey(row.key as Uint8Array),
    stateText: typeof row.state === "string" ? row.state : "{}",
    version: Number(row.version),
    createdAt: Number(row.created_at),
    accessedAt: Number(row.accessed_at),
  };
}

/** `Date.parse` of an ISO time, or null when it is missing or unreadable. */
export function toEpochMs(iso: string | undefined): number | null {
  if (iso === undefined) return null;
  const ms = Date.parse(iso);
  return Number.isFinite(ms) ? ms : null;
}

/** Offset and limit as whole, non-negative numbers; a missing limit is null (SQL `LIMIT NULL`: no limit). */
export function pageBounds(offset: number | undefined, limit: number | undefined): [number, number | null] {
  const whole = (value: number) => (Number.isFinite(value) ? Math.max(0, Math.floor(value)) : 0);
  return [
    whole(offset ?? 0),
    limit === undefined || limit === Number.POSITIVE_INFINITY ? null : whole(limit),
  ];
}

/** A session's insert parameters (`$1`–`$11` of the session insert). */
export function sessionParams(session: SessionRecord): unknown[] {
  return [
    session.id,
    session.flowId,
    session.flowKind,
    session.userId,
    session.orgId ?? null,
    session.tenantId ?? null,
    session.parentSessionId ?? null,
    session.rootSessionId,
    session.title ?? null,
    JSON.stringify(session.metadata ?? {}),
    session.createdAt,
  ];
}

/** A request's insert parameters (`$1`–`$21` of the request insert). */
export function requestParams(record: RequestRecord): unknown[] {
  return [
    record.id,
    record.sessionId,
    record.flowId,
    record.flowKind,
    record.action,
    record.userId,
    record.orgId ?? null,
    record.status,
    toJsonText(record.input ?? null),
    toJsonText(record.output),
    toJsonText(record.error),
    JSON.stringify(record.metadata ?? {}),
    record.durable,
    record.claim?.hostId ?? null,
    record.claim?.until ?? null,
    record.version,
    record.createdAt,
    record.startedAt ?? null,
    record.completedAt ?? null,
    toEpochMs(record.completedAt) ?? toEpochMs(record.createdAt),
    record.epoch ?? null,
  ];
}
