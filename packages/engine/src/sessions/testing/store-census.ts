import {
  type FlowStores,
  type JsonObject,
  type RequestRecord,
  type RequestStatus,
  type ScopeKind,
  SHARED_BUCKET,
} from "@flowrt/core";

const ALL_STATUSES: RequestStatus[] = ["queued", "running", "completed", "failed", "aborted"];

/** The ids a census looks up (besides what the store's listings name). */
export interface CensusIds {
  sessions?: string[];
  users?: string[];
  orgs?: string[];
  requests?: string[];
  /** Isolation buckets to look in besides the shared one (isolating flows' ids). */
  buckets?: string[];
}

/**
 * Everything the stores hold under the given ids, read through the store contract's own reads and listings: each
 * session record (one marked `deleting` included), every request record the store lists (and each named one),
 * their event logs, the active entries, and for every session, user and org in every bucket its scope state and
 * its resources with their content. Sorted, so that two censuses compare as JSON text.
 */
export async function census(stores: FlowStores, ids: CensusIds): Promise<JsonObject> {
  const buckets = [SHARED_BUCKET, ...(ids.buckets ?? [])];
  const listedSessions = (await stores.sessions.list({ limit: 100_000 })).items.map((s) => s.id).sort();
  const sessionIds = [...new Set([...(ids.sessions ?? []), ...listedSessions])].sort();
  const sessions: JsonObject = {};
  for (const id of sessionIds) sessions[id] = (await stores.sessions.get(id)) as never;

  const listed = await stores.requests.listByStatus(ALL_STATUSES);
  const requestIds = [...new Set([...(ids.requests ?? []), ...listed.map((r) => r.id)])].sort();
  const requests: JsonObject = {};
  const events: JsonObject = {};
  for (const id of requestIds) {
    requests[id] = (await stores.requests.get(id)) as never;
    events[id] = (await stores.requests.readEvents(id)) as never;
  }
  const active = (await stores.requests.listActive({})).sort((a, b) => (a.requestId < b.requestId ? -1 : 1));

  const scopes: JsonObject = {};
  const resources: JsonObject = {};
  const owners: [ScopeKind, string][] = [
    ...sessionIds.map((id) => ["session", id] as [ScopeKind, string]),
    ...(ids.users ?? []).map((id) => ["user", id] as [ScopeKind, string]),
    ...(ids.orgs ?? []).map((id) => ["org", id] as [ScopeKind, string]),
  ];
  for (const [scope, scopeId] of owners) {
    for (const bucket of buckets) {
      const address = { scope, scopeId, bucket };
      const name = `${scope}/${scopeId}/${bucket}`;
      const state = await stores.scopeState.get(address);
      if (state !== null) scopes[name] = state as never;
      const { items } = await stores.resources.list(address);
      if (items.length === 0) continue;
      const rows: JsonObject[] = [];
      for (const item of items) {
        rows.push({
          key: item.key,
          state: item.state,
          version: item.version,
          content: await stores.resources.getContent(address, item.key),
        });
      }
      resources[name] = rows;
    }
  }
  return {
    listedSessions,
    sessions,
    requests,
    events,
    active: active as never,
    scopes,
    resources,
  };
}

/** How many records of each kind a census holds (sessions and requests that exist, events, active, scopes, keys). */
export function tally(dump: JsonObject): Record<string, number> {
  const present = (map: unknown) => Object.values(map as JsonObject).filter((v) => v !== null).length;
  const events = Object.values(dump.events as JsonObject).reduce<number>(
    (n, list) => n + (list as unknown[]).length,
    0,
  );
  const keys = Object.values(dump.resources as JsonObject).reduce<number>(
    (n, rows) => n + (rows as unknown[]).length,
    0,
  );
  return {
    sessions: present(dump.sessions),
    requests: present(dump.requests),
    events,
    active: (dump.active as unknown[]).length,
    scopes: Object.keys(dump.scopes as JsonObject).length,
    resources: keys,
  };
}

/** The request records a census holds for one user. */
export function requestsOf(dump: JsonObject, userId: string): RequestRecord[] {
  return Object.values(dump.requests as JsonObject).filter(
    (r) => r !== null && (r as unknown as RequestRecord).userId === userId,
  ) as unknown as RequestRecord[];
}

/** A {@link census} of exactly these ids and what is stored under them (none the store's listings add). */
export async function censusOf(stores: FlowStores, ids: CensusIds): Promise<JsonObject> {
  const dump = await census(stores, ids);
  const keep = new Set([...(ids.sessions ?? []), ...(ids.requests ?? [])]);
  const pick = (map: unknown) =>
    Object.fromEntries(Object.entries(map as JsonObject).filter(([id]) => keep.has(id))) as JsonObject;
  const scopes = (map: unknown) =>
    Object.fromEntries(
      Object.entries(map as JsonObject).filter(
        ([name]) => !name.startsWith("session/") || keep.has(name.split("/")[1]!),
      ),
    ) as JsonObject;
  return {
    sessions: pick(dump.sessions),
    requests: pick(dump.requests),
    events: pick(dump.events),
    active: (dump.active as { requestId: string }[]).filter((entry) => keep.has(entry.requestId)) as never,
    scopes: scopes(dump.scopes),
    resources: scopes(dump.resources),
  };
}
