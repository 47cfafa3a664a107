import type { CasResult, Fence, JsonObject, ScopeStateStore, Versioned, WriteCondition } from "@flowrt/core";
import type { Queryable } from "./driver.js";
import { checkFence, fenceParams } from "./fence.js";
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

  /** The new version, or null when the condition did not hold. */
  const unfenced = async (params: unknown[], condition: WriteCondition): Promise<number | null> => {
    const { rows } =
      condition.type === "absent"
        ? await db.query<{ version: unknown }>(sql.insert, params)
        : condition.type === "version"
          ? await db.query<{ version: unknown }>(sql.updateVersion, [...params, condition.version])
          : await db.query<{ version: unknown }>(sql.upsert, params);
    return rows[0] ? Number(rows[0].version) : null;
  };

  /** The same write with the fence checked in its statement; throws `lease-lost` when it was refused. */
  const fenced = async (
    params: unknown[],
    condition: WriteCondition,
    fence: Fence,
  ): Promise<number | null> => {
    const checked = fenceParams(fence);
    type Row = { fence_epoch: unknown; version: unknown };
    const { rows } =
      condition.type === "absent"
        ? await db.query<Row>(sql.fenced.insert, [...params, ...checked])
        : condition.type === "version"
          ? await db.query<Row>(sql.fenced.updateVersion, [...params, condition.version, ...checked])
          : await db.query<Row>(sql.fenced.upsert, [...params, ...checked]);
    checkFence(fence, rows[0]?.fence_epoch);
    const version = rows[0]?.version;
    return version === null || version === undefined ? null : Number(version);
  };

  return {
    get,
    async put(address, value, condition, fence): Promise<CasResult<JsonObject>> {
      const json = stateText(value, "scope state");
      const write = async (): Promise<CasResult<JsonObject>> => {
        const params: unknown[] = [address.scope, address.scopeId, address.bucket, json];
        const version =
          fence === undefined ? await unfenced(params, condition) : await fenced(params, condition, fence);
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
