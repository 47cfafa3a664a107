import {
  FlowError,
  isScheduleTick,
  type ScheduleStore,
  type ScheduleTick,
  type ScheduleTickRecord,
  type TickClaim,
} from "@flowrt/core";
import type { PostgresDriver } from "./driver.js";
import type { StoreSql } from "./sql.js";

type Row = Record<string, unknown>;

function toTick(row: Row): ScheduleTickRecord {
  const record: ScheduleTickRecord = {
    flowId: String(row.flow_id),
    schedule: String(row.schedule),
    at: Number(row.at),
    claim: { hostId: String(row.claim_host), until: Number(row.claim_until) },
    epoch: Number(row.epoch),
  };
  if (row.request_id !== null && row.request_id !== undefined) record.requestId = String(row.request_id);
  return record;
}

function tickParams(tick: ScheduleTick): [string, string, number] {
  if (!isScheduleTick(tick))
    throw new TypeError("store-postgres: a tick is { flowId: string, schedule: string, at: <integer ms> }.");
  return [tick.flowId, tick.schedule, tick.at];
}

/**
 * Schedule ticks across hosts: a claim runs in one transaction holding an advisory lock of its schedule (so two
 * first claims of one tick, or a first claim and a newer tick, are decided one after the other); a take-over and a
 * fire are single statements conditional on the epoch, settled by the row lock.
 */
export function createScheduleStore(db: PostgresDriver, sql: StoreSql["schedules"]): ScheduleStore {
  return {
    async claimTick(tick, claim: TickClaim, now) {
      const params = tickParams(tick);
      const ok =
        typeof claim === "object" &&
        claim !== null &&
        typeof claim.hostId === "string" &&
        Number.isSafeInteger(claim.until) &&
        Number.isFinite(now);
      if (!ok)
        throw new TypeError(
          "store-postgres: a tick claim is { hostId: string, until: <integer ms> }, with now in ms.",
        );
      return db.transaction(async (tx) => {
        await tx.query(sql.lock, params.slice(0, 2));
        const { rows } = await tx.query(sql.tick, params);
        const row = rows[0]!;
        const newestAt = row.newest_at === null ? null : Number(row.newest_at);
        if (row.flow_id === null) {
          if (newestAt !== null && newestAt > tick.at) {
            const newest = await tx.query(sql.get, [params[0], params[1], newestAt]);
            return { ok: false as const, current: toTick(newest.rows[0]!) };
          }
          const inserted = await tx.query(sql.insert, [...params, claim.hostId, claim.until]);
          await tx.query(sql.prune, params);
          return { ok: true as const, record: toTick(inserted.rows[0]!) };
        }
        const stored = toTick(row);
        if (stored.requestId !== undefined || stored.claim.until > now)
          return { ok: false as const, current: stored };
        const taken = await tx.query(sql.takeOver, [...params, claim.hostId, claim.until, stored.epoch]);
        if (taken.rows[0]) return { ok: true as const, record: toTick(taken.rows[0]) };
        // Fired meanwhile (a fire takes no advisory lock): answered as stored now.
        const again = await tx.query(sql.get, params);
        return { ok: false as const, current: toTick(again.rows[0]!) };
      });
    },

    async fireTick(tick, epoch, requestId) {
      const params = tickParams(tick);
      if (!Number.isSafeInteger(epoch) || typeof requestId !== "string" || requestId === "")
        throw new TypeError("store-postgres: fireTick takes an integer epoch and a non-empty request id.");
      const { rows } = await db.query(sql.fire, [...params, epoch, requestId]);
      if (rows.length === 1) return;
      const where = `store-postgres: the fire of tick ${new Date(tick.at).toISOString()} of schedule "${tick.schedule}" under claim epoch ${epoch} was refused`;
      const stored = (await db.query(sql.get, params)).rows[0];
      if (stored === undefined) throw new FlowError("lease-lost", `${where}: the tick was never claimed.`);
      const record = toTick(stored);
      if (record.epoch !== epoch)
        throw new FlowError("lease-lost", `${where}: the tick was claimed again (epoch ${record.epoch}).`);
      throw new FlowError("lease-lost", `${where}: the tick has fired.`);
    },

    async latestTick(flowId, schedule) {
      if (typeof flowId !== "string" || typeof schedule !== "string")
        throw new TypeError("store-postgres: latestTick takes a flow id and a schedule name.");
      const { rows } = await db.query(sql.latest, [flowId, schedule]);
      return rows[0] ? toTick(rows[0]) : null;
    },
  };
}
