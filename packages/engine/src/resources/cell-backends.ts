import type {
  JsonObject,
  ResourceStore,
  ScopeAddress,
  ScopeStateStore,
  Versioned,
  WriteCondition,
} from "@flowrt/core";
import { type AbortState, refuseIfAborted } from "../requests/run-abort.js";
import type { CellBackend } from "../state/state-cell.js";

/**
 * Version 0 stands for "nothing stored yet, but a definition `default` applies": the cell reads the
 * default as its current state and its first write is create-only.
 */
const UNSTORED = 0;

function condition(expectedVersion: number | null): WriteCondition {
  return expectedVersion === null || expectedVersion === UNSTORED
    ? { type: "absent" }
    : { type: "version", version: expectedVersion };
}

/**
 * A cell over one key of the resource store. `initial` is what an unstored key reads as. `run` is the
 * request the cell writes for: once it is aborted, a write is refused (`request-aborted`) and stores nothing.
 */
export function resourceCellBackend(
  store: ResourceStore,
  address: ScopeAddress,
  key: string,
  initial?: JsonObject,
  run?: AbortState,
): CellBackend {
  const orInitial = (stored: Versioned<JsonObject> | null): Versioned<JsonObject> | null =>
    stored ?? (initial === undefined ? null : { value: initial, version: UNSTORED });
  return {
    async read() {
      const record = await store.getState(address, key);
      return orInitial(record ? { value: record.state, version: record.version } : null);
    },
    async write(value, expectedVersion) {
      refuseIfAborted(run, "state write to", key);
      const result = await store.putState(address, key, value, condition(expectedVersion));
      return result.ok ? result : { ok: false, current: orInitial(result.current) };
    },
  };
}

/** A cell over one scope state record (session, user or org); `run` as for {@link resourceCellBackend}. */
export function scopeStateCellBackend(
  store: ScopeStateStore,
  address: ScopeAddress,
  run?: AbortState,
): CellBackend {
  return {
    read: () => store.get(address),
    write: (value, expectedVersion) => {
      refuseIfAborted(run, "state write to scope", address.scope);
      return store.put(address, value, condition(expectedVersion));
    },
  };
}
