import {
  type FlowStores,
  type JsonObject,
  type ResourceStore,
  type ScopeAddress,
  SHARED_BUCKET,
  type WriteCondition,
} from "@flowrt/core";

/**
 * Points where a test can step into the resource store, to make a race happen at a chosen moment
 * (a write between the server's read and its delete, two creates that write at the same moment).
 * Each hook runs before the store call it names; set and clear them per test.
 */
export interface ResourceHooks {
  beforeGetState?: (address: ScopeAddress, key: string) => Promise<void> | void;
  beforePutState?: (address: ScopeAddress, key: string, condition: WriteCondition) => Promise<void> | void;
  beforeDeleteState?: (address: ScopeAddress, key: string, condition: WriteCondition) => Promise<void> | void;
  beforePutContent?: (address: ScopeAddress, key: string, content: string) => Promise<void> | void;
}

/** The same stores with `hooks` run ahead of the resource store's calls. */
export function withResourceHooks(stores: FlowStores, hooks: ResourceHooks): FlowStores {
  const inner = stores.resources;
  const resources: ResourceStore = {
    async getState(address, key) {
      await hooks.beforeGetState?.(address, key);
      return inner.getState(address, key);
    },
    async putState(address, key, state, condition) {
      await hooks.beforePutState?.(address, key, condition);
      return inner.putState(address, key, state, condition);
    },
    async deleteState(address, key, condition) {
      await hooks.beforeDeleteState?.(address, key, condition);
      return inner.deleteState(address, key, condition);
    },
    touch: (address, key, at) => inner.touch(address, key, at),
    list: (address, options) => inner.list(address, options),
    count: (address, prefix, options) => inner.count(address, prefix, options),
    getContent: (address, key) => inner.getContent(address, key),
    async putContent(address, key, content) {
      await hooks.beforePutContent?.(address, key, content);
      return inner.putContent(address, key, content);
    },
    deleteContent: (address, key) => inner.deleteContent(address, key),
  };
  return { ...stores, resources };
}

/** The store address of a session's own resources. */
export function sessionAddress(sessionId: string): ScopeAddress {
  return { scope: "session", scopeId: sessionId, bucket: SHARED_BUCKET };
}

/**
 * Everything the stores hold that a route could write, for "a refusal wrote nothing" checks: sessions,
 * requests with their event logs and the active set, and per session its scope state, every resource
 * state and every content row.
 */
export async function dumpStores(stores: FlowStores): Promise<JsonObject> {
  const sessions = (await stores.sessions.list({ limit: 10_000 })).items;
  const requests = await stores.requests.listByStatus([
    "queued",
    "running",
    "completed",
    "failed",
    "aborted",
  ]);
  const events: JsonObject = {};
  for (const request of requests)
    events[request.id] = (await stores.requests.readEvents(request.id)) as never;
  const perSession: JsonObject = {};
  for (const session of sessions) {
    const address = sessionAddress(session.id);
    const records = (await stores.resources.list(address)).items;
    const content: JsonObject = {};
    for (const record of records)
      content[record.key] = await stores.resources.getContent(address, record.key);
    perSession[session.id] = {
      state: ((await stores.scopeState.get(address)) ?? null) as never,
      resources: records.map((r) => ({ key: r.key, state: r.state, version: r.version })),
      content,
    };
  }
  return JSON.parse(
    JSON.stringify({
      sessions,
      // A running request renews its claim (and so its version) on its own; neither is a write by the route.
      requests: requests.map(({ claim: _claim, version: _version, ...rest }) => rest),
      events,
      active: await stores.requests.listActive({}),
      perSession,
    }),
  ) as JsonObject;
}
