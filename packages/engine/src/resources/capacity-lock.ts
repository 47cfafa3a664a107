import type { ResourceStore, ScopeAddress } from "@flowrt/core";

/**
 * Capped collections' creates, one at a time per collection instance set (scope address and pattern) in
 * this process. `maxInstances` is a count checked before a create-only write: two creates of different
 * keys that both find room would otherwise both land (a model's parallel tool calls do exactly that).
 * Per store, so hosts on separate stores never wait for each other; across processes sharing a store the
 * cap stays a per-process guarantee.
 */
const tails = new WeakMap<ResourceStore, Map<string, Promise<unknown>>>();

export function withCapacityLock<T>(
  store: ResourceStore,
  address: ScopeAddress,
  pattern: string,
  work: () => Promise<T>,
): Promise<T> {
  let byKey = tails.get(store);
  if (byKey === undefined) tails.set(store, (byKey = new Map()));
  const key = JSON.stringify([address.scope, address.scopeId, address.bucket, pattern]);
  const previous = byKey.get(key) ?? Promise.resolve();
  const result = previous.then(work, work);
  const tail = result.then(
    () => {},
    () => {},
  );
  byKey.set(key, tail);
  // The last in line removes the entry, so the map holds only collections with a create in flight.
  void tail.then(() => {
    if (byKey.get(key) === tail) byKey.delete(key);
  });
  return result;
}
