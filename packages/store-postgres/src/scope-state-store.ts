import {
  type CasResult,
  FlowError,
  type JsonObject,
  type ScopeStateStore,
  type Versioned,
} from "@flowrt/core";
import type { PostgresDriver } from "./driver.js";
import { conditionalWrite } from "./fence.js";
import { KeyWriteQueue } from "./key-write-queue.js";
import { stateText } from "./rows.js";
import type { StoreSql } from "./sql.js";

export function createScopeStateStore(db: PostgresDriver, sql: StoreSql["scopeState"]): ScopeStateStore {
  const get = async (
    address: Parameters<ScopeStateStore["get"]>[0],
  ): Promise<Versioned<JsonObject> | null> => {
    const { rows } = await db.query<{ value: string; version: unknown }>(sql.get, [
      address.scope,
      address.scopeId,
      address.bucket,
    ]);
    const row = rows[0];
    return row ? { value: JSON.parse(row.value) as JsonObject, version: Number(row.version) } : null;
  };

  // Session, user and org state are counters too (`incState`): same local short-cut as resources.
  const writes = new KeyWriteQueue();

  const putStatements = {
    plain: { absent: sql.insert, version: sql.updateVersion, any: sql.upsert },
    fenced: { absent: sql.fenced.insert, version: sql.fenced.updateVersion, any: sql.fenced.upsert },
  };

  return {
    get,
    async getMany(addresses) {
      if (addresses.length === 0) return [];
      if (addresses.length === 1) return [await get(addresses[0]!)];
      const { rows } = await db.query<{ ord: unknown; value: string; version: unknown }>(sql.getMany, [
        addresses.map((address) => address.scope),
        addresses.map((address) => address.scopeId),
        addresses.map((address) => address.bucket),
      ]);
      const found: (Versioned<JsonObject> | null)[] = addresses.map(() => null);
      for (const row of rows) {
        found[Number(row.ord) - 1] = {
          value: JSON.parse(row.value) as JsonObject,
          version: Number(row.version),
        };
      }
      return found;
    },
    async put(address, value, condition, fence): Promise<CasResult<JsonObject>> {
      const json = stateText(value, "scope state");
      const write = async (): Promise<CasResult<JsonObject>> => {
        const params: unknown[] = [address.scope, address.scopeId, address.bucket, json];
        const version = await conditionalWrite(db, putStatements, params, condition, fence);
        return version === null ? { ok: false, current: await get(address) } : { ok: true, version };
      };
      return writes.run(
        JSON.stringify([address.scope, address.scopeId, address.bucket]),
        condition,
        write,
        json,
      );
    },

    async removeScope(scope, scopeId) {
      if ((scope !== "user" && scope !== "org") || typeof scopeId !== "string")
        throw new FlowError(
          "invalid-request",
          'store-postgres: removeScope takes the scope "user" or "org" and its id (a session\'s scope goes with sessions.remove).',
        );
      // One transaction: the rows, then the counters they leave at zero (after the count trigger has run).
      return db.transaction(async (tx) => {
        const { rows } = await tx.query<{ states: unknown; contents: unknown; resources: unknown }>(
          sql.removeScopeData,
          [scope, scopeId],
        );
        await tx.query(sql.removeScopeCounts, [scope, scopeId]);
        return {
          states: Number(rows[0]?.states ?? 0),
          resources: Number(rows[0]?.resources ?? 0),
          contents: Number(rows[0]?.contents ?? 0),
        };
      });
    },
  };
}
