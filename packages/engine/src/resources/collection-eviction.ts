import {
  type CollectionDefinition,
  FlowError,
  type ResourceStateRecord,
  type ResourceStore,
  type ScopeAddress,
} from "@flowrt/core";
import { refuseIfAborted } from "../requests/run-abort.js";
import type { ResourceRuntimeContext } from "./context.js";

/** What making room asks of a collection (`CollectionRuntime`). */
export interface EvictionTarget {
  readonly accessor: string;
  readonly def: CollectionDefinition<any>;
  readonly address: ScopeAddress;
  readonly ctx: ResourceRuntimeContext;
  readonly store: ResourceStore;
  page(prefix: string | undefined): Promise<{ records: ResourceStateRecord[] }>;
  countAll(): Promise<number>;
  /** After a committed delete: the hook, then the announcement. */
  removed(path: string): Promise<void>;
}

/**
 * After the store refused a create for want of room (`maxInstances` is checked only when adding): `none` refuses
 * with `collection-full`; `lru`/`oldest` evict the least recently used / the oldest until there would be room for
 * one more. The store's capped write then decides: a racing create may have taken the room made here.
 */
export async function makeRoom(target: EvictionTarget, path: string, max: number): Promise<void> {
  const { def, accessor } = target;
  if (def.eviction === "none") {
    throw new FlowError(
      "collection-full",
      `Resource "${accessor}" holds ${await target.countAll()} of maxInstances ${max}; delete an instance first or set eviction to "lru" or "oldest".`,
      { details: { resource: accessor, maxInstances: max } },
    );
  }
  const live = (await target.page(undefined)).records.filter((r) => r.key !== path);
  const by = def.eviction === "lru" ? "accessedAt" : "createdAt";
  live.sort((a, b) => a[by] - b[by] || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  for (const victim of live.slice(0, Math.max(0, live.length - max + 1))) await evict(target, victim);
}

/**
 * Deletes an eviction victim at the version read: one that a racing create evicted first, or that changed
 * meanwhile, is left alone (the create tries again with a fresh count), so no eviction is announced twice.
 */
async function evict(target: EvictionTarget, victim: ResourceStateRecord): Promise<void> {
  refuseIfAborted(target.ctx, "delete of", victim.key);
  const deleted = await target.store.deleteState(target.address, victim.key, {
    type: "version",
    version: victim.version,
  });
  if (deleted.ok) await target.removed(victim.key);
}
