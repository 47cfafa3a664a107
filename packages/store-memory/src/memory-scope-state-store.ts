import type { JsonObject, ScopeAddress, ScopeStateStore, Versioned } from "@flowrt/core";
import { admits, checkAddress, checkCondition, checkObject } from "./validate.js";

const addressId = (address: ScopeAddress) => JSON.stringify([address.scope, address.scopeId, address.bucket]);

export function createMemoryScopeStateStore(): ScopeStateStore {
  const records = new Map<string, Versioned<JsonObject>>();
  return {
    async get(address) {
      checkAddress(address);
      const found = records.get(addressId(address));
      return found ? structuredClone(found) : null;
    },
    async put(address, value, condition) {
      checkAddress(address);
      checkObject(value, "scope state");
      checkCondition(condition);
      const id = addressId(address);
      const current = records.get(id) ?? null;
      if (!admits(condition, current))
        return { ok: false, current: current ? structuredClone(current) : null };
      const version = (current?.version ?? 0) + 1;
      records.set(id, { value: structuredClone(value), version });
      return { ok: true, version };
    },
  };
}
