import type {
  SessionListPosition,
  SessionPatch,
  SessionRecord,
  SessionRemoval,
  SessionStore,
} from "@flowrt/core";
import { checkJsonObject, checkOptionalString, checkString, jsonText } from "./json-text.js";
import { mergeMetadata } from "./merge-metadata.js";
import { NewestFirstIndex } from "./newest-first-index.js";
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
  /** Whether a removal has begun (`deleting: true` in `text`): left out of `list`. */
  deleting: boolean;
}

/**
 * What the request store tells the session store, so that an ephemeral session (metadata
 * `ephemeral: true`, as the engine makes for a webhook delivery without `sessionId`) is retired with
 * the last of its requests, instead of outliving them forever.
 */
export interface SessionRetirement {
  /** A request naming `sessionId` was stored. */
  requestStored(sessionId: string): void;
  /**
   * A request naming `sessionId` was removed. With `retire` (retention), an ephemeral session left without
   * requests goes; without it (a user's requests removed) only the count moves.
   */
  requestRemoved(sessionId: string, retire?: boolean): void;
}

/** A session record checked and copied into its row by {@link SessionCreation.prepare}, not stored yet. */
export interface PreparedSession {
  readonly id: string;
}

/**
 * How the request store creates a request's own new session with the request, in one synchronous step
 * (`requests.create(record, { session })`): both or neither.
 */
export interface SessionCreation {
  /** Checks a session record and copies it into a row, storing nothing (throws on a bad record). */
  prepare(session: SessionRecord): PreparedSession;
  has(id: string): boolean;
  /** Stores a prepared row, in every index `create` would; false (nothing stored) when its id is taken. */
  insert(prepared: PreparedSession): boolean;
}

export type MemorySessionStore = SessionStore & SessionRetirement & SessionCreation;

export interface MemorySessionStoreHooks {
  /** Called with a retired ephemeral session's id, for the stores that hold its session-scope data. */
  onRetired?: (sessionId: string) => void;
  /**
   * Removes what is stored under a session in the other stores (its requests with their events and active
   * entries, its session-scope state, resources and content in every bucket) and counts it. Called by `remove`
   * before the record goes, in the same synchronous step. Without it a removal counts nothing else.
   */
  removeParts?: (sessionId: string) => SessionRemoval;
}

const NOTHING_ELSE: SessionRemoval = { requests: 0, events: 0, states: 0, resources: 0, contents: 0 };

const isEphemeral = (metadata: unknown) =>
  (metadata as { ephemeral?: unknown } | undefined)?.ephemeral === true;

/** Oldest first by `createdAt`, then by id ascending (children's order). */
const oldestFirst = (a: SessionRow, b: SessionRow) =>
  a.createdAt === b.createdAt ? (a.id < b.id ? -1 : a.id > b.id ? 1 : 0) : a.createdAt < b.createdAt ? -1 : 1;

const read = (row: SessionRow): SessionRecord => JSON.parse(row.text);

function addTo<V>(index: Map<string, Set<V>>, key: string | undefined, row: V): void {
  if (key === undefined) return;
  let rows = index.get(key);
  if (!rows) index.set(key, (rows = new Set()));
  rows.add(row);
}

function removeFrom<V>(index: Map<string, Set<V>>, key: string | undefined, row: V): void {
  if (key === undefined) return;
  const rows = index.get(key);
  if (rows === undefined) return;
  rows.delete(row);
  if (rows.size === 0) index.delete(key);
}

function addOrdered(
  index: Map<string, NewestFirstIndex<SessionRow>>,
  key: string | undefined,
  row: SessionRow,
) {
  if (key === undefined) return;
  let rows = index.get(key);
  if (!rows) index.set(key, (rows = new NewestFirstIndex()));
  rows.add(row);
}

function removeOrdered(
  index: Map<string, NewestFirstIndex<SessionRow>>,
  key: string | undefined,
  row: SessionRow,
): void {
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

function checkPosition(after: SessionListPosition | undefined): void {
  if (after === undefined) return;
  if (typeof after !== "object" || after === null) {
    throw new TypeError("store-memory: a session list position is { createdAt: string, id: string }.");
  }
  checkString(after.createdAt, "session list position createdAt");
  checkString(after.id, "session list position id");
}

/** Checks every field of a patch before anything is written. */
function checkSessionPatch(patch: SessionPatch): void {
  if (typeof patch !== "object" || patch === null) {
    throw new TypeError("store-memory: a session patch must be an object.");
  }
  if (patch.title !== undefined && patch.title !== null) checkString(patch.title, "session title");
  if (patch.metadata !== undefined) checkJsonObject(patch.metadata, "session metadata");
  if (patch.metadataPatch !== undefined) checkJsonObject(patch.metadataPatch, "session metadataPatch");
}

/**
 * Sessions by id, kept newest first in one index per user, per org and overall (so a page starts with a
 * binary search, by `offset` or by an `after` position), and by parent. A listing parses only the page it
 * returns. An ephemeral session goes when the request store removes the last request that ran in it (see
 * {@link SessionRetirement}); `hooks.onRetired` then drops its session-scope data elsewhere. `remove` takes
 * everything stored under a session away through `hooks.removeParts`, then the record, in one synchronous step.
 */
export function createMemorySessionStore(hooks: MemorySessionStoreHooks = {}): MemorySessionStore {
  const sessions = new Map<string, SessionRow>();
  const all = new NewestFirstIndex<SessionRow>();
  const byUser = new Map<string, NewestFirstIndex<SessionRow>>();
  const byOrg = new Map<string, NewestFirstIndex<SessionRow>>();
  const byParent = new Map<string, Set<SessionRow>>();
  /** How many stored sessions are marked `deleting`: while none is, an unfiltered total is an index's size. */
  let deletingCount = 0;

  const forget = (row: SessionRow): void => {
    sessions.delete(row.id);
    all.delete(row);
    removeOrdered(byUser, row.userId, row);
    removeOrdered(byOrg, row.orgId, row);
    removeFrom(byParent, row.parentSessionId, row);
    if (row.deleting) deletingCount--;
  };

  const retire = (row: SessionRow): void => {
    forget(row);
    hooks.onRetired?.(row.id);
  };

  // Requests stored for a session id no session has yet: counted here, and taken over when it is created
  // (the contract keeps a session while any request that ran in it is stored, whatever came first).
  const unclaimed = new Map<string, number>();

  const store: MemorySessionStore = {
    requestStored(sessionId) {
      const row = sessions.get(sessionId);
      if (row !== undefined) row.requests++;
      else unclaimed.set(sessionId, (unclaimed.get(sessionId) ?? 0) + 1);
    },

    requestRemoved(sessionId, retireEphemeral = true) {
      const row = sessions.get(sessionId);
      if (row === undefined) {
        const left = (unclaimed.get(sessionId) ?? 0) - 1;
        if (left > 0) unclaimed.set(sessionId, left);
        else unclaimed.delete(sessionId);
        return;
      }
      if (row.requests === 0) return;
      row.requests--;
      if (retireEphemeral && row.requests === 0 && row.ephemeral) retire(row);
    },

    prepare(session) {
      checkSession(session);
      const row: SessionRow = {
        id: session.id,
        flowId: session.flowId,
        userId: session.userId,
        orgId: session.orgId,
        tenantId: session.tenantId,
        parentSessionId: session.parentSessionId,
        createdAt: session.createdAt,
        text: jsonText(session, "session"),
        requests: 0,
        ephemeral: isEphemeral(session.metadata),
        deleting: session.deleting === true,
      };
      return row;
    },

    has(id) {
      return sessions.has(id);
    },

    insert(prepared) {
      const row = prepared as SessionRow;
      if (sessions.has(row.id)) return false;
      row.requests = unclaimed.get(row.id) ?? 0;
      unclaimed.delete(row.id);
      sessions.set(row.id, row);
      all.add(row);
      addOrdered(byUser, row.userId, row);
      addOrdered(byOrg, row.orgId, row);
      addTo(byParent, row.parentSessionId, row);
      if (row.deleting) deletingCount++;
      return true;
    },

    async create(session) {
      // Checked and copied before the id is looked up: a bad record throws even when the id is taken.
      return store.insert(store.prepare(session));
    },

    async get(id) {
      const row = sessions.get(id);
      return row ? read(row) : null;
    },

    async list(query) {
      const { offset, limit } = pageWindow(query);
      checkPosition(query.after);
      const index =
        query.userId !== undefined
          ? byUser.get(query.userId)
          : query.orgId !== undefined
            ? byOrg.get(query.orgId)
            : all;
      if (index === undefined) return { items: [], total: 0 };
      const narrowsByOrg = query.userId !== undefined && query.orgId !== undefined;
      const flowIds = query.flowIds ? new Set(query.flowIds) : undefined;
      const matches = (row: SessionRow) =>
        !row.deleting &&
        (!narrowsByOrg || row.orgId === query.orgId) &&
        (flowIds === undefined || (row.flowId !== null && flowIds.has(row.flowId)));

      let total = 0;
      if (!narrowsByOrg && flowIds === undefined && deletingCount === 0) total = index.size;
      else for (const row of index.from()) if (matches(row)) total++;

      const items: SessionRecord[] = [];
      let skipped = 0;
      if (limit > 0) {
        for (const row of index.from(query.after)) {
          if (!matches(row)) continue;
          if (skipped < offset) {
            skipped++;
            continue;
          }
          items.push(read(row));
          if (items.length >= limit) break;
        }
      }
      return { items, total };
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
      checkSessionPatch(patch);
      const row = sessions.get(id);
      if (!row) return null;
      // Only the mutable fields are read from the patch; owner fields cannot be smuggled in.
      const { title, metadata, metadataPatch } = patch;
      if (title === undefined && metadata === undefined && metadataPatch === undefined) return read(row);
      const record = read(row);
      if (title === null) delete record.title;
      else if (title !== undefined) record.title = title;
      if (metadata !== undefined) record.metadata = metadata;
      // Merged into what is stored now, with no await since the read: a concurrent patch of another key is kept.
      if (metadataPatch !== undefined) record.metadata = mergeMetadata(record.metadata, metadataPatch);
      // Stored as text, so the caller's objects are not kept; a value JSON cannot hold throws before the write.
      row.text = jsonText(record, "session");
      row.ephemeral = isEphemeral(record.metadata);
      return read(row);
    },

    async markDeleting(id) {
      const row = sessions.get(id);
      if (!row) return false;
      if (row.deleting) return true;
      const record = read(row);
      record.deleting = true;
      row.text = jsonText(record, "session");
      row.deleting = true;
      deletingCount++;
      return true;
    },

    async remove(id) {
      const row = sessions.get(id);
      if (!row) return null;
      // Everything under the session, then the record, with no await in between.
      const parts = hooks.removeParts?.(id) ?? NOTHING_ELSE;
      forget(row);
      return { ...parts };
    },
  };
  return store;
}
