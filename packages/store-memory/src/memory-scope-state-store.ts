import type { ScopeAddress, ScopeKind, ScopeStateStore } from "@flowrt/core";
import { createFenceGuard, type FenceGuard } from "./fence-guard.js";
import { checkJsonObject } from "./json-text.js";
import { admits, checkAddress, checkCondition, toJsonText } from "./validate.js";

/** A state record as JSON text: copied in with one stringify, out with one parse. */
interface StateRow {
  text: string;
  version: number;
}

/** Whose records: the scope has no `:`, so the first one ends it and the rest is the scope id. */
const ownerId = (address: Pick<ScopeAddress, "scope" | "scopeId">) => `${address.scope}:${address.scopeId}`;

export type MemoryScopeStateStore = ScopeStateStore & {
  /** Drops a session's state records, in every bucket; returns how many there were. */
  dropSession(sessionId: string): number;
};

/** Drops the resources and content of one owner in every bucket, counting them (see `MemoryResourceStore`). */
export type DropOwnerResources = (
  scope: ScopeKind,
  scopeId: string,
) => { resources: number; contents: number };

/**
 * Records by owner (scope and scope id), then by bucket, so that an owner's records go together. `fenced` checks
 * a fenced write against the requests of the stores this one belongs to (by default there are none, so every
 * fenced write is refused). `dropResources` takes an owner's resources away with its state in `removeScope`
 * (by default there are none).
 */
export function createMemoryScopeStateStore(
  fenced: FenceGuard = createFenceGuard(() => undefined),
  dropResources: DropOwnerResources = () => ({ resources: 0, contents: 0 }),
): MemoryScopeStateStore {
  const records = new Map<string, Map<string, StateRow>>();
  const dropOwner = (scope: ScopeKind, scopeId: string): number => {
    const owner = ownerId({ scope, scopeId });
    const count = records.get(owner)?.size ?? 0;
    records.delete(owner);
    return count;
  };
  return {
    dropSession(sessionId) {
      return dropOwner("session", sessionId);
    },
    async removeScope(scope, scopeId) {
      if (scope !== "user" && scope !== "org") {
        throw new TypeError(
          `store-memory: removeScope takes scope "user" or "org" (got ${JSON.stringify(scope)}); a session goes with sessions.remove.`,
        );
      }
      if (typeof scopeId !== "string") throw new TypeError("store-memory: a scope id must be a string.");
      // State, resources and content in one synchronous step.
      const states = dropOwner(scope, scopeId);
      return { states, ...dropResources(scope, scopeId) };
    },
    async get(address) {
      checkAddress(address);
      const found = records.get(ownerId(address))?.get(address.bucket);
      return found ? { value: JSON.parse(found.text), version: found.version } : null;
    },
    async getMany(addresses) {
      if (!Array.isArray(addresses))
        throw new TypeError("store-memory: getMany takes an array of addresses.");
      // Every address checked before any is read: a bad one throws, whatever its place.
      for (const address of addresses) checkAddress(address);
      return addresses.map((address) => {
        const found = records.get(ownerId(address))?.get(address.bucket);
        return found ? { value: JSON.parse(found.text), version: found.version } : null;
      });
    },
    async put(address, value, condition, fence) {
      checkAddress(address);
      checkJsonObject(value, "scope state");
      checkCondition(condition);
      // From here to the write there is no await: a claim cannot land between the check and the write.
      fenced(fence);
      const owner = ownerId(address);
      const current = records.get(owner)?.get(address.bucket);
      const live = current ?? null;
      if (!admits(condition, live)) {
        return {
          ok: false,
          current: current ? { value: JSON.parse(current.text), version: current.version } : null,
        };
      }
      // Refuses what JSON cannot hold (a function, NaN) before anything is written, as resource state does.
      const text = toJsonText(value, "scope state");
      const version = (current?.version ?? 0) + 1;
      if (current) {
        current.text = text;
        current.version = version;
      } else {
        let buckets = records.get(owner);
        if (buckets === undefined) records.set(owner, (buckets = new Map()));
        buckets.set(address.bucket, { text, version });
      }
      return { ok: true, version };
    },
  };
}
