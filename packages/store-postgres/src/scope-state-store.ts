import type { CasResult, JsonObject, ScopeStateStore, Versioned } from "@flowrt/core";
import type { Queryable } from "./driver.js";
import { conditionalWrite } from "./fence.js";
import { KeyWriteQueue } from "./key-write-queue.js";
import { stateText } from "./rows.js";
import type { StoreSql } from "./sql.js";

export function createScopeStateStore(db: Queryable, sql: StoreSql["scopeState"]): ScopeStateStore {
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
  };
}
