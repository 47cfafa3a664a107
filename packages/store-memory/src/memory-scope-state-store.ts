import { type ScopeAddress, type ScopeStateStore, SHARED_BUCKET } from "@flowrt/core";
import { checkJsonObject } from "./json-text.js";
import { admits, checkAddress, checkCondition, toJsonText } from "./validate.js";

/** A state record as JSON text: copied in with one stringify, out with one parse. */
interface StateRow {
  text: string;
  version: number;
}

/** Unambiguous without escaping: the scope has no `:`, and the scope id's length says where it ends. */
const addressId = (address: ScopeAddress) =>
  `${address.scope}:${address.scopeId.length}:${address.scopeId}${address.bucket}`;

export type MemoryScopeStateStore = ScopeStateStore & {
  /** Drops a retired session's state record (session state lives in the shared bucket). */
  dropSession(sessionId: string): void;
};

export function createMemoryScopeStateStore(): MemoryScopeStateStore {
  const records = new Map<string, StateRow>();
  return {
    dropSession(sessionId) {
      records.delete(addressId({ scope: "session", scopeId: sessionId, bucket: SHARED_BUCKET }));
    },
    async get(address) {
      checkAddress(address);
      const found = records.get(addressId(address));
      return found ? { value: JSON.parse(found.text), version: found.version } : null;
    },
    async put(address, value, condition) {
      checkAddress(address);
      checkJsonObject(value, "scope state");
      checkCondition(condition);
      const id = addressId(address);
      const current = records.get(id);
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
      } else records.set(id, { text, version });
      return { ok: true, version };
    },
  };
}
