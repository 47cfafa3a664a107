import {
  type CasResult,
  type Fence,
  FlowError,
  type JsonObject,
  type ListOptions,
  type ResourceStateRecord,
  type ResourceStore,
  type ScopeAddress,
  type WriteCap,
} from "@flowrt/core";
import type { PostgresDriver, Queryable } from "./driver.js";
import { checkFence, conditionalWrite, fenceParams } from "./fence.js";
import { encodeKey, isCountedPrefix, keyDepth, prefixRange } from "./key-codec.js";
import { KeyWriteQueue } from "./key-write-queue.js";
import { pageBounds, stateText, toResourceState, toResourceStateText } from "./rows.js";
import type { StoreSql } from "./sql.js";

export function createResourceStore(
  db: PostgresDriver,
  sql: StoreSql["resources"],
  schema: string,
): ResourceStore {
  const at = (address: ScopeAddress, key: string): unknown[] => [
    address.scope,
    address.scopeId,
    address.bucket,
    encodeKey(key),
  ];
  const scope = (address: ScopeAddress): unknown[] => [address.scope, address.scopeId, address.bucket];
  const writes = new KeyWriteQueue();
  const writeId = (address: ScopeAddress, key: string) =>
    JSON.stringify([address.scope, address.scopeId, address.bucket, key]);

  const getStateOn = async (on: Queryable, address: ScopeAddress, key: string) => {
    const { rows } = await on.query(sql.get, at(address, key));
    return rows[0] ? toResourceState(rows[0]) : null;
  };
  const getState: ResourceStore["getState"] = (address, key) => getStateOn(db, address, key);

  const refused = (record: ResourceStateRecord | null): CasResult<JsonObject> => ({
    ok: false,
    current: record ? { value: record.state, version: record.version } : null,
  });
  const lost = async (address: ScopeAddress, key: string) => refused(await getState(address, key));
  // A delete with nothing live to remove succeeds, reporting the version the key has reached (0 if never written).
  const deletedNothing = async (address: ScopeAddress, key: string): Promise<CasResult<JsonObject>> => {
    const { rows } = await db.query<{ version: unknown }>(sql.lastVersion, at(address, key));
    return { ok: true, version: Number(rows[0]?.version ?? 0) };
  };

  const putStatements = {
    plain: { absent: sql.insertAbsent, version: sql.updateVersion, any: sql.upsert },
    fenced: { absent: sql.fenced.insertAbsent, version: sql.fenced.updateVersion, any: sql.fenced.upsert },
  };

  const countOn = async (on: Queryable, address: ScopeAddress, prefix: string, leaf: boolean) => {
    if (isCountedPrefix(prefix)) {
      // "" and prefixes ending in "/" have a counter row, kept in the writing transaction (see migrations 2, 7).
      const { rows } = await on.query<{ live: unknown }>(leaf ? sql.countLeafCounter : sql.countCounter, [
        ...scope(address),
        encodeKey(prefix),
      ]);
      return Number(rows[0]?.live ?? 0);
    }
    if (leaf) {
      const { low, high } = prefixRange(prefix);
      const depth = keyDepth(prefix);
      const { rows } =
        high === null
          ? await on.query<{ live: unknown }>(sql.countLeafFrom, [...scope(address), low, depth])
          : await on.query<{ live: unknown }>(sql.countLeafRange, [...scope(address), low, depth, high]);
      return Number(rows[0]?.live ?? 0);
    }
    const { low, high } = prefixRange(prefix);
    const { rows } =
      high === null
        ? await on.query<{ live: unknown }>(sql.countFrom, [...scope(address), low])
        : await on.query<{ live: unknown }>(sql.countRange, [...scope(address), low, high]);
    return Number(rows[0]?.live ?? 0);
  };
  const count: ResourceStore["count"] = (address, prefix = "", options = {}) =>
    countOn(db, address, prefix, options.leaf === true);

  /**
   * A page's rows and its total. The page is one index range from its low bound: the prefix's start, or just
   * after `after` when that lies at or past it (a keyset position, at any depth). Rows hold the state as text.
   */
  const pageOf = async (address: ScopeAddress, options: ListOptions) => {
    const prefix = options.prefix ?? "";
    const { low, high } = prefixRange(prefix);
    const [offset, limit] = pageBounds(options.offset, options.limit);
    const leaf = options.leaf === true;
    let start = low;
    let strict = false;
    if (options.after !== undefined) {
      if (typeof options.after !== "string")
        throw new FlowError("invalid-request", "store-postgres: a listing's `after` is a key (a string).");
      const after = encodeKey(options.after);
      if (Buffer.compare(after, low) >= 0) {
        start = after;
        strict = true;
      }
    }
    const bounds = [...scope(address), start, offset, limit];
    const statements = strict
      ? leaf
        ? [sql.pageLeafAfterFrom, sql.pageLeafAfterRange]
        : [sql.pageAfterFrom, sql.pageAfterRange]
      : leaf
        ? [sql.pageLeafFrom, sql.pageLeafRange]
        : [sql.pageFrom, sql.pageRange];
    const params = leaf ? [...bounds, keyDepth(prefix)] : bounds;
    const [page, total] = await Promise.all([
      high === null
        ? db.query(statements[0] as string, params)
        : db.query(statements[1] as string, [...params, high]),
      count(address, prefix, { leaf }),
    ]);
    return { rows: page.rows, total };
  };

  /**
   * A create-only write that needs room under `cap.prefix`: in one transaction that first takes the prefix's
   * advisory lock, so the live check, the count and the insert of every capped create under that prefix run
   * one at a time across hosts (see the README's "Capped creates").
   */
  const insertCapped = (address: ScopeAddress, key: string, json: string, cap: WriteCap, fence?: Fence) =>
    db.transaction(async (tx): Promise<CasResult<JsonObject>> => {
      const leaf = cap.leaf === true;
      await tx.query(sql.capLock, [JSON.stringify([schema, ...scope(address), cap.prefix, leaf])]);
      if (fence !== undefined) {
        // The request's row stays locked FOR SHARE until this transaction commits: no claim lands before the insert.
        const { rows } = await tx.query<{ fence_epoch: unknown }>(sql.fenced.lock, [fence.requestId]);
        checkFence(fence, rows[0]?.fence_epoch);
      }
      const live = await getStateOn(tx, address, key);
      if (live !== null) return refused(live);
      if ((await countOn(tx, address, cap.prefix, leaf)) >= cap.max)
        return { ok: false, current: null, full: true };
      const { rows } = await tx.query<{ version: unknown }>(sql.insertAbsent, [
        ...at(address, key),
        json,
        Date.now(),
      ]);
      // An uncapped create of this very key can still land between the read and the insert.
      return rows[0]
        ? { ok: true, version: Number(rows[0].version) }
        : refused(await getStateOn(tx, address, key));
    });

  return {
    getState,

    async putState(address, key, state, condition, fence) {
      const json = stateText(state, "resource state");
      if (fence !== undefined) fenceParams(fence);
      const cap = condition.type === "absent" ? condition.cap : undefined;
      if (cap !== undefined) {
        checkCap(cap);
        return writes.run(
          writeId(address, key),
          condition,
          () => insertCapped(address, key, json, cap, fence),
          json,
        );
      }
      const write = async (): Promise<CasResult<JsonObject>> => {
        const params = [...at(address, key), json, Date.now()];
        const version = await conditionalWrite(db, putStatements, params, condition, fence);
        return version === null ? lost(address, key) : { ok: true, version };
      };
      return writes.run(writeId(address, key), condition, write, json);
    },

    async deleteState(address, key, condition, fence) {
      if (fence !== undefined) fenceParams(fence);
      if (condition.type === "absent") {
        // "Delete only if nothing is there" deletes nothing: it succeeds when the key is absent. With nothing
        // to write there is nothing to hold the request's row for; a stale run is still told it lost its claim.
        if (fence !== undefined) {
          const { rows } = await db.query<{ fence_epoch: unknown }>(sql.fenced.read, [fence.requestId]);
          checkFence(fence, rows[0]?.fence_epoch);
        }
        const record = await getState(address, key);
        return record ? refused(record) : deletedNothing(address, key);
      }
      const write = async (): Promise<CasResult<JsonObject>> => {
        const expected = condition.type === "version" ? condition.version : null;
        const params = [...at(address, key), expected];
        let version: unknown;
        if (fence === undefined) {
          version = (await db.query<{ version: unknown }>(sql.delete, params)).rows[0]?.version;
        } else {
          const { rows } = await db.query<{ fence_epoch: unknown; version: unknown }>(sql.fenced.delete, [
            ...params,
            ...fenceParams(fence),
          ]);
          checkFence(fence, rows[0]?.fence_epoch);
          version = rows[0]?.version;
        }
        if (version !== null && version !== undefined) return { ok: true, version: Number(version) };
        return condition.type === "version" ? lost(address, key) : deletedNothing(address, key);
      };
      return writes.run(writeId(address, key), condition, write, null);
    },

    async touch(address, key, time = Date.now()) {
      await db.query(sql.touch, [...at(address, key), Math.floor(time)]);
    },

    async getStateText(address, key) {
      const { rows } = await db.query(sql.get, at(address, key));
      return rows[0] ? toResourceStateText(rows[0]) : null;
    },

    async list(address, options = {}) {
      const { rows, total } = await pageOf(address, options);
      return { items: rows.map(toResourceState), total };
    },

    async listText(address, options = {}) {
      const { rows, total } = await pageOf(address, options);
      return { items: rows.map(toResourceStateText), total };
    },

    count,

    async getContent(address, key) {
      const { rows } = await db.query<{ body: string }>(sql.getContent, at(address, key));
      return rows[0] ? rows[0].body : null;
    },

    async putContent(address, key, content, fence) {
      if (fence === undefined) {
        await db.query(sql.putContent, [...at(address, key), content]);
        return;
      }
      const { rows } = await db.query<{ fence_epoch: unknown }>(sql.fenced.putContent, [
        ...at(address, key),
        content,
        ...fenceParams(fence),
      ]);
      checkFence(fence, rows[0]?.fence_epoch);
    },

    async deleteContent(address, key, fence) {
      if (fence === undefined) {
        await db.query(sql.deleteContent, at(address, key));
        return;
      }
      const { rows } = await db.query<{ fence_epoch: unknown }>(sql.fenced.deleteContent, [
        ...at(address, key),
        ...fenceParams(fence),
      ]);
      checkFence(fence, rows[0]?.fence_epoch);
    },
  };
}

/** A capped create's room: `{ prefix: string, leaf?: boolean, max: <non-negative integer> }`. */
function checkCap(cap: WriteCap): void {
  const ok =
    typeof cap === "object" &&
    cap !== null &&
    typeof cap.prefix === "string" &&
    (cap.leaf === undefined || typeof cap.leaf === "boolean") &&
    Number.isSafeInteger(cap.max) &&
    cap.max >= 0;
  if (!ok)
    throw new TypeError(
      "store-postgres: a write cap is { prefix: string, leaf?: boolean, max: <non-negative integer> }.",
    );
}
