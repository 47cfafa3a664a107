import type { SessionRecord, SessionStore } from "@flowrt/core";
import { checkJsonObject, checkOptionalString, checkString, jsonText } from "./json-text.js";
import { pageWindow } from "./validate.js";

/**
 * One stored session: the whole record as JSON text (one stringify in, one parse out, a leaf the
 * garbage collector never walks), beside the fields that indexes, filters and sorting read.
 */
interface SessionRow {
  readonly id: string;
  readonly flowId: string | null;
  readonly userId: string;
  readonly orgId: string | undefined;
  readonly tenantId: string | undefined;
  readonly parentSessionId: string | undefined;
  readonly createdAt: string;
  text: string;
  /** Stored requests that ran in this session (see {@link SessionRetirement}). */
  requests: number;
  /** Whether its metadata says `ephemeral: true` (kept in step with `text` on updates). */
  ephemeral: boolean;
}

/**
 * What the request store tells the session store, so that an ephemeral session (metadata
 * `ephemeral: true`, as the engine makes for a webhook delivery without `sessionId`) is retired with
 * the last of its requests, instead of outliving them forever.
 */
export interface SessionRetirement {
  /** A request naming `sessionId` was stored. */
  requestStored(sessionId: string): void;
  /** A request naming `sessionId` was removed (retention). */
  requestRemoved(sessionId: string): void;
}

export type MemorySessionStore = SessionStore & SessionRetirement;

/** Called with a retired session's id, for the stores that hold its session-scope data. */
export type SessionRetired = (sessionId: string) => void;

const isEphemeral = (metadata: unknown) =>
  (metadata as { ephemeral?: unknown } | undefined)?.ephemeral === true;

/** Newest first by `createdAt`, then by id descending, so equal timestamps still page stably. */
const newestFirst = (a: SessionRow, b: SessionRow) =>
  a.createdAt === b.createdAt ? (a.id < b.id ? 1 : a.id > b.id ? -1 : 0) : a.createdAt < b.createdAt ? 1 : -1;
const oldestFirst = (a: SessionRow, b: SessionRow) => newestFirst(b, a);

const read = (row: SessionRow): SessionRecord => JSON.parse(row.text);

function addTo(index: Map<string, Set<SessionRow>>, key: string | undefined, row: SessionRow): void {
  if (key === undefined) return;
  let rows = index.get(key);
  if (!rows) index.set(key, (rows = new Set()));
  rows.add(row);
}

function removeFrom(index: Map<string, Set<SessionRow>>, key: string | undefined, row: SessionRow): void {
  if (key === undefined) return;
  const rows = index.get(key);
  if (rows === undefined) return;
  rows.delete(row);
  if (rows.size === 0) index.delete(key);
}

function checkSession(session: SessionRecord): void {
  if (typeof session?.id !== "string" || typeof session.userId !== "string") {
    throw new TypeError("store-memory: a session record needs a string id and userId.");
  }
  if (session.flowId !== null) checkString(session.flowId, "session flowId");
  checkString(session.createdAt, "session createdAt");
  checkOptionalString(session.orgId, "session orgId");
  checkOptionalString(session.tenantId, "session tenantId");
  checkOptionalString(session.parentSessionId, "session parentSessionId");
  checkJsonObject(session.metadata, "session metadata");
}

/**
 * Sessions by id, with secondary indexes by user, org and parent. A listing reads only the owner's
 * sessions (sorted per call), never the whole store, and parses only the page it returns. An
 * ephemeral session goes when the request store removes the last request that ran in it;
 * `onRetired` then drops its session-scope data elsewhere.
 */
export function createMemorySessionStore(onRetired?: SessionRetired): MemorySessionStore {
  const sessions = new Map<string, SessionRow>();
  const byUser = new Map<string, Set<SessionRow>>();
  const byOrg = new Map<string, Set<SessionRow>>();
  const byParent = new Map<string, Set<SessionRow>>();

  const retire = (row: SessionRow): void => {
    sessions.delete(row.id);
    removeFrom(byUser, row.userId, row);
    removeFrom(byOrg, row.orgId, row);
    removeFrom(byParent, row.parentSessionId, row);
    onRetired?.(row.id);
  };

  // Requests stored for a session id no session has yet: counted here, and taken over when it is created
  // (the contract keeps a session while any request that ran in it is stored, whatever came first).
  const unclaimed = new Map<string, number>();

  return {
    requestStored(sessionId) {
      const row = sessions.get(sessionId);
      if (row !== undefined) row.requests++;
      else unclaimed.set(sessionId, (unclaimed.get(sessionId) ?? 0) + 1);
    },

    requestRemoved(sessionId) {
      const row = sessions.get(sessionId);
      if (row === undefined) {
        const left = (unclaimed.get(sessionId) ?? 0) - 1;
        if (left > 0) unclaimed.set(sessionId, left);
        else unclaimed.delete(sessionId);
        return;
      }
      if (row.requests === 0) return;
      row.requests--;
      if (row.requests === 0 && row.ephemeral) retire(row);
    },

    async create(session) {
      checkSession(session);
      if (sessions.has(session.id)) return false;
      const row: SessionRow = {
        id: session.id,
        flowId: session.flowId,
        userId: session.userId,
        orgId: session.orgId,
        tenantId: session.tenantId,
        parentSessionId: session.parentSessionId,
        createdAt: session.createdAt,
        text: jsonText(session, "session"),
        requests: unclaimed.get(session.id) ?? 0,
        ephemeral: isEphemeral(session.metadata),
      };
      unclaimed.delete(row.id);
      sessions.set(row.id, row);
      addTo(byUser, row.userId, row);
      addTo(byOrg, row.orgId, row);
      addTo(byParent, row.parentSessionId, row);
      return true;
    },

    async get(id) {
      const row = sessions.get(id);
      return row ? read(row) : null;
    },

    async list(query) {
      const { offset, limit } = pageWindow(query);
      const candidates =
        query.userId !== undefined
          ? byUser.get(query.userId)
          : query.orgId !== undefined
            ? byOrg.get(query.orgId)
            : sessions.values();
      const flowIds = query.flowIds ? new Set(query.flowIds) : undefined;
      const matching: SessionRow[] = [];
      for (const row of candidates ?? []) {
        if (query.orgId !== undefined && row.orgId !== query.orgId) continue;
        if (flowIds !== undefined && (row.flowId === null || !flowIds.has(row.flowId))) continue;
        matching.push(row);
      }
      matching.sort(newestFirst);
      return { items: matching.slice(offset, offset + limit).map(read), total: matching.length };
    },

    async listChildren(parentSessionId, filter) {
      const children: SessionRow[] = [];
      for (const row of byParent.get(parentSessionId) ?? []) {
        if (row.userId !== filter.userId) continue;
        if (filter.orgId !== undefined && row.orgId !== filter.orgId) continue;
        if (filter.tenantId !== undefined && row.tenantId !== filter.tenantId) continue;
        if (filter.flowId !== undefined && row.flowId !== filter.flowId) continue;
        children.push(row);
      }
      return children.sort(oldestFirst).map(read);
    },

    async update(id, patch) {
      const row = sessions.get(id);
      if (!row) return null;
      // Only the two mutable fields are read from the patch; owner fields cannot be smuggled in.
      const { title, metadata } = patch;
      if (title !== undefined) checkString(title, "session title");
      if (metadata !== undefined) checkJsonObject(metadata, "session metadata");
      if (title !== undefined || metadata !== undefined) {
        const record = read(row);
        if (title !== undefined) record.title = title;
        if (metadata !== undefined) record.metadata = metadata;
        // Stored as text, so the caller's metadata object is not kept.
        row.text = jsonText(record, "session");
        row.ephemeral = isEphemeral(record.metadata);
      }
      return read(row);
    },
  };
}
