import type { ScopeAddress, ScopeStateStore } from "@flowrt/core";
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
  /** Drops a retired session's state records, in every bucket. */
  dropSession(sessionId: string): void;
};

/**
 * Records by owner (scope and scope id), then by bucket, so that an owner's records go together. `fenced` checks
 * a fenced write against the requests of the stores this one belongs to (by default there are none, so every
 * fenced write is refused).
 */
export function createMemoryScopeStateStore(
  fenced: FenceGuard = createFenceGuard(() => undefined),
): MemoryScopeStateStore {
  const records = new Map<string, Map<string, StateRow>>();
  return {
    dropSession(sessionId) {
      records.delete(ownerId({ scope: "session", scopeId: sessionId }));
    },
    async get(address) {
      checkAddress(address);
      const found = records.get(ownerId(address))?.get(address.bucket);
      return found ? { value: JSON.parse(found.text), version: found.version } : null;
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
