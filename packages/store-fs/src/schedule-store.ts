import {
  FlowError,
  type ScheduleStore,
  type ScheduleTick,
  type ScheduleTickRecord,
  type TickClaim,
  type TickClaimResult,
} from "@flowrt/core";
import { DocTable } from "./internal/doc-table.js";
import type { FsContext } from "./internal/fs-context.js";
import type { KeyedMutex } from "./internal/keyed-mutex.js";
import { assertNonEmptyString, assertString } from "./internal/validate.js";

/** One schedule's file: its newest tick and every tick that has not fired (fired older ones are dropped). */
interface ScheduleDoc {
  ticks: ScheduleTickRecord[];
}

function assertTick(tick: ScheduleTick): void {
  if (typeof tick !== "object" || tick === null)
    throw new FlowError("invalid-request", "A tick must be an object.");
  assertString(tick.flowId, "tick.flowId");
  assertString(tick.schedule, "tick.schedule");
  if (!Number.isSafeInteger(tick.at))
    throw new FlowError("invalid-request", "tick.at must be an integer (ms).");
}

function assertClaim(claim: TickClaim, now: number): void {
  if (typeof claim !== "object" || claim === null)
    throw new FlowError("invalid-request", "A tick claim must be an object.");
  assertString(claim.hostId, "claim.hostId");
  if (!Number.isFinite(claim.until) || !Number.isFinite(now))
    throw new FlowError("invalid-request", "claim.until and now must be numbers (ms).");
}

/** Keeps the newest tick and the unfired ones. */
function pruned(ticks: ScheduleTickRecord[]): ScheduleTickRecord[] {
  const newest = Math.max(...ticks.map((t) => t.at));
  return ticks.filter((t) => t.at === newest || t.requestId === undefined);
}

/**
 * Schedule ticks, one file per schedule (`schedules/`), each change read, decided and written under the schedule's
 * lock: the claim and the fire of a tick never interleave within this store instance (the store's guarantees hold
 * within one instance, as everywhere in `store-fs`).
 */
export class FsScheduleStore implements ScheduleStore {
  private readonly table: DocTable<ScheduleDoc>;

  constructor(
    private readonly ctx: FsContext,
    private readonly mutex: KeyedMutex,
  ) {
    this.table = new DocTable<ScheduleDoc>(ctx, "schedules");
  }

  private change<T>(
    flowId: string,
    schedule: string,
    decide: (ticks: ScheduleTickRecord[]) => { result: T; ticks?: ScheduleTickRecord[] },
  ): Promise<T> {
    const id = JSON.stringify([flowId, schedule]);
    return this.mutex.run(`schedule:${id}`, async () => {
      const doc = await this.table.read(id);
      const { result, ticks } = decide(doc?.ticks ?? []);
      if (ticks !== undefined) await this.table.write(id, { ticks: pruned(ticks) });
      return result;
    });
  }

  async claimTick(tick: ScheduleTick, claim: TickClaim, now: number): Promise<TickClaimResult> {
    assertTick(tick);
    assertClaim(claim, now);
    await this.ctx.ready();
    return this.change<TickClaimResult>(tick.flowId, tick.schedule, (ticks) => {
      const stored = ticks.find((t) => t.at === tick.at);
      if (stored === undefined) {
        const newest = ticks.reduce<ScheduleTickRecord | undefined>(
          (a, t) => (a === undefined || t.at > a.at ? t : a),
          undefined,
        );
        if (newest !== undefined && newest.at > tick.at) return { result: { ok: false, current: newest } };
        const record: ScheduleTickRecord = {
          flowId: tick.flowId,
          schedule: tick.schedule,
          at: tick.at,
          claim: { hostId: claim.hostId, until: claim.until },
          epoch: 1,
        };
        return { result: { ok: true, record }, ticks: [...ticks, record] };
      }
      if (stored.requestId !== undefined || stored.claim.until > now)
        return { result: { ok: false, current: stored } };
      const record: ScheduleTickRecord = {
        ...stored,
        claim: { hostId: claim.hostId, until: claim.until },
        epoch: stored.epoch + 1,
      };
      return { result: { ok: true, record }, ticks: ticks.map((t) => (t.at === tick.at ? record : t)) };
    });
  }

  async fireTick(tick: ScheduleTick, epoch: number, requestId: string): Promise<void> {
    assertTick(tick);
    if (!Number.isSafeInteger(epoch)) throw new FlowError("invalid-request", "epoch must be an integer.");
    assertNonEmptyString(requestId, "requestId");
    await this.ctx.ready();
    const where = `store-fs: the fire of tick ${new Date(tick.at).toISOString()} of schedule "${tick.schedule}" under claim epoch ${epoch} was refused`;
    await this.change(tick.flowId, tick.schedule, (ticks) => {
      const stored = ticks.find((t) => t.at === tick.at);
      if (stored === undefined) throw new FlowError("lease-lost", `${where}: the tick was never claimed.`);
      if (stored.epoch !== epoch)
        throw new FlowError("lease-lost", `${where}: the tick was claimed again (epoch ${stored.epoch}).`);
      if (stored.requestId !== undefined) throw new FlowError("lease-lost", `${where}: the tick has fired.`);
      return { result: undefined, ticks: ticks.map((t) => (t.at === tick.at ? { ...t, requestId } : t)) };
    });
  }

  async latestTick(flowId: string, schedule: string): Promise<ScheduleTickRecord | null> {
    assertString(flowId, "flowId");
    assertString(schedule, "schedule");
    await this.ctx.ready();
    const doc = await this.table.read(JSON.stringify([flowId, schedule]));
    if (doc === null || doc.ticks.length === 0) return null;
    return doc.ticks.reduce((a, t) => (t.at > a.at ? t : a));
  }
}
