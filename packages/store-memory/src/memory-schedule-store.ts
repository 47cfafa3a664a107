import {
  FlowError,
  isScheduleTick,
  type ScheduleStore,
  type ScheduleTick,
  type ScheduleTickRecord,
  type TickClaim,
} from "@flowrt/core";

/** Throws a `TypeError` for a tick that is not `{ flowId: string, schedule: string, at: <integer> }`. */
function checkTick(tick: ScheduleTick): void {
  if (!isScheduleTick(tick))
    throw new TypeError("store-memory: a tick is { flowId: string, schedule: string, at: <integer ms> }.");
}

function checkClaim(claim: TickClaim, now: number): void {
  const ok =
    typeof claim === "object" &&
    claim !== null &&
    typeof claim.hostId === "string" &&
    Number.isFinite(claim.until) &&
    Number.isFinite(now);
  if (!ok)
    throw new TypeError("store-memory: a tick claim is { hostId: string, until: <ms> }, with now in ms.");
}

const copy = (record: ScheduleTickRecord): ScheduleTickRecord => ({ ...record, claim: { ...record.claim } });

/** One schedule's stored ticks: the newest, and every one that has not fired (fired older ones are dropped). */
interface ScheduleTicks {
  latest: ScheduleTickRecord;
  byAt: Map<number, ScheduleTickRecord>;
}

/**
 * Schedule ticks in this process's memory. Every method checks and writes with no `await` in between, so a claim
 * and a fire of one tick never interleave. A fired tick older than its schedule's newest is dropped: a tick older
 * than the newest that has no record is refused as superseded, so nothing needs it any more.
 */
export function createMemoryScheduleStore(): ScheduleStore {
  const schedules = new Map<string, ScheduleTicks>();
  const keyOf = (flowId: string, schedule: string) => JSON.stringify([flowId, schedule]);

  const prune = (ticks: ScheduleTicks) => {
    for (const [at, record] of ticks.byAt)
      if (at < ticks.latest.at && record.requestId !== undefined) ticks.byAt.delete(at);
  };

  return {
    async claimTick(tick, claim, now) {
      checkTick(tick);
      checkClaim(claim, now);
      const key = keyOf(tick.flowId, tick.schedule);
      const ticks = schedules.get(key);
      const stored = ticks?.byAt.get(tick.at);
      if (stored === undefined) {
        // Superseded: a newer tick is stored, so this one is too late to fire.
        if (ticks !== undefined && ticks.latest.at > tick.at)
          return { ok: false, current: copy(ticks.latest) };
        const record: ScheduleTickRecord = {
          flowId: tick.flowId,
          schedule: tick.schedule,
          at: tick.at,
          claim: { hostId: claim.hostId, until: claim.until },
          epoch: 1,
        };
        if (ticks === undefined) schedules.set(key, { latest: record, byAt: new Map([[tick.at, record]]) });
        else {
          ticks.byAt.set(tick.at, record);
          ticks.latest = record;
          prune(ticks);
        }
        return { ok: true, record: copy(record) };
      }
      if (stored.requestId !== undefined || stored.claim.until > now)
        return { ok: false, current: copy(stored) };
      stored.claim = { hostId: claim.hostId, until: claim.until };
      stored.epoch += 1;
      return { ok: true, record: copy(stored) };
    },

    async fireTick(tick, epoch, requestId) {
      checkTick(tick);
      if (!Number.isSafeInteger(epoch) || typeof requestId !== "string" || requestId === "")
        throw new TypeError("store-memory: fireTick takes an integer epoch and a non-empty request id.");
      const ticks = schedules.get(keyOf(tick.flowId, tick.schedule));
      const stored = ticks?.byAt.get(tick.at);
      const where = `store-memory: the fire of tick ${new Date(tick.at).toISOString()} of schedule "${tick.schedule}" under claim epoch ${epoch} was refused`;
      if (stored === undefined) throw new FlowError("lease-lost", `${where}: the tick was never claimed.`);
      if (stored.epoch !== epoch)
        throw new FlowError("lease-lost", `${where}: the tick was claimed again (epoch ${stored.epoch}).`);
      if (stored.requestId !== undefined) throw new FlowError("lease-lost", `${where}: the tick has fired.`);
      stored.requestId = requestId;
      if (ticks !== undefined) prune(ticks);
    },

    async latestTick(flowId, schedule) {
      if (typeof flowId !== "string" || typeof schedule !== "string")
        throw new TypeError("store-memory: latestTick takes a flow id and a schedule name.");
      const ticks = schedules.get(keyOf(flowId, schedule));
      return ticks === undefined ? null : copy(ticks.latest);
    },
  };
}
