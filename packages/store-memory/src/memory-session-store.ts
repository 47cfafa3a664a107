import type { SessionRecord, SessionStore } from "@flowrt/core";
import { pageWindow } from "./validate.js";

/** Newest first by `createdAt`, then by id descending, so equal timestamps still page stably. */
const newestFirst = (a: SessionRecord, b: SessionRecord) =>
  a.createdAt === b.createdAt ? (a.id < b.id ? 1 : a.id > b.id ? -1 : 0) : a.createdAt < b.createdAt ? 1 : -1;
const oldestFirst = (a: SessionRecord, b: SessionRecord) => newestFirst(b, a);

function addTo(index: Map<string, Set<string>>, key: string | undefined, id: string): void {
  if (key === undefined) return;
  let ids = index.get(key);
  if (!ids) index.set(key, (ids = new Set()));
  ids.add(id);
}

/**
 * Sessions by id, with secondary indexes by user, org and parent. A listing reads only the owner's
 * sessions (sorted per call), never the whole store.
 */
export function createMemorySessionStore(): SessionStore {
  const sessions = new Map<string, SessionRecord>();
  const byUser = new Map<string, Set<string>>();
  const byOrg = new Map<string, Set<string>>();
  const byParent = new Map<string, Set<string>>();
  const load = (ids: Iterable<string> | undefined) => [...(ids ?? [])].map((id) => sessions.get(id)!);

  return {
    async create(session) {
      if (typeof session?.id !== "string" || typeof session.userId !== "string") {
        throw new TypeError("store-memory: a session record needs a string id and userId.");
      }
      if (sessions.has(session.id)) return false;
      const stored = structuredClone(session);
      sessions.set(stored.id, stored);
      addTo(byUser, stored.userId, stored.id);
      addTo(byOrg, stored.orgId, stored.id);
      addTo(byParent, stored.parentSessionId, stored.id);
      return true;
    },

    async get(id) {
      const found = sessions.get(id);
      return found ? structuredClone(found) : null;
    },

    async list(query) {
      const { offset, limit } = pageWindow(query);
      const candidates =
        query.userId !== undefined
          ? load(byUser.get(query.userId))
          : query.orgId !== undefined
            ? load(byOrg.get(query.orgId))
            : [...sessions.values()];
      const flowIds = query.flowIds ? new Set(query.flowIds) : undefined;
      const matching = candidates
        .filter(
          (s) =>
            (query.orgId === undefined || s.orgId === query.orgId) &&
            (flowIds === undefined || (s.flowId !== null && flowIds.has(s.flowId))),
        )
        .sort(newestFirst);
      return { items: structuredClone(matching.slice(offset, offset + limit)), total: matching.length };
    },

    async listChildren(parentSessionId, filter) {
      const children = load(byParent.get(parentSessionId)).filter(
        (s) =>
          s.userId === filter.userId &&
          (filter.orgId === undefined || s.orgId === filter.orgId) &&
          (filter.tenantId === undefined || s.tenantId === filter.tenantId) &&
          (filter.flowId === undefined || s.flowId === filter.flowId),
      );
      return structuredClone(children.sort(oldestFirst));
    },

    async update(id, patch) {
      const found = sessions.get(id);
      if (!found) return null;
      // Only the two mutable fields are read from the patch; owner fields cannot be smuggled in.
      const title = patch.title;
      const metadata = patch.metadata === undefined ? undefined : structuredClone(patch.metadata);
      if (title !== undefined) found.title = title;
      if (metadata !== undefined) found.metadata = metadata;
      return structuredClone(found);
    },
  };
}
