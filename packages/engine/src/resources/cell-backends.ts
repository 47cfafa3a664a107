import type {
  JsonObject,
  ResourceStore,
  ScopeAddress,
  ScopeStateStore,
  Versioned,
  WriteCondition,
} from "@flowrt/core";
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

/** A cell over one key of the resource store. `initial` is what an unstored key reads as. */
export function resourceCellBackend(
  store: ResourceStore,
  address: ScopeAddress,
  key: string,
  initial?: JsonObject,
): CellBackend {
  const orInitial = (stored: Versioned<JsonObject> | null): Versioned<JsonObject> | null =>
    stored ?? (initial === undefined ? null : { value: initial, version: UNSTORED });
  return {
    async read() {
      const record = await store.getState(address, key);
      return orInitial(record ? { value: record.state, version: record.version } : null);
    },
    async write(value, expectedVersion) {
      const result = await store.putState(address, key, value, condition(expectedVersion));
      return result.ok ? result : { ok: false, current: orInitial(result.current) };
    },
  };
}

/** A cell over one scope state record (session, user or org). */
export function scopeStateCellBackend(store: ScopeStateStore, address: ScopeAddress): CellBackend {
  return {
    read: () => store.get(address),
    write: (value, expectedVersion) => store.put(address, value, condition(expectedVersion)),
  };
}
