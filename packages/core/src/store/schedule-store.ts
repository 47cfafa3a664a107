/**
 * The store contract's schedule ticks (see `contract.ts` for the rules every store keeps): one record per tick of a
 * flow's schedule, claimed by the host that fires it. A tick fires once across every host sharing the store: a host
 * claims it ({@link ScheduleStore.claimTick}), then marks it fired under that claim ({@link ScheduleStore.fireTick});
 * a claim left by a host that died or froze expires and another host takes the tick over with a newer epoch, after
 * which the first host's fire is refused. The same fencing as a durable request's claim ({@link Fence}).
 */

/** One tick of one schedule of one flow instance. */
export interface ScheduleTick {
  /** The flow instance id. */
  flowId: string;
  /** The schedule's name (its key under the flow's `schedules`). */
  schedule: string;
  /** When the tick is due: milliseconds since the epoch (a whole second for cron expressions). */
  at: number;
}

/** A host's claim on a tick: who holds it, and until when it holds without being fired (ms since the epoch). */
/** Whether `value` is a tick a store can take: `{ flowId: string, schedule: string, at: <integer ms> }`. */
export function isScheduleTick(value: unknown): value is ScheduleTick {
  if (typeof value !== "object" || value === null) return false;
  const tick = value as Partial<ScheduleTick>;
  return (
    typeof tick.flowId === "string" && typeof tick.schedule === "string" && Number.isSafeInteger(tick.at)
  );
}

export interface TickClaim {
  hostId: string;
  until: number;
}

/** A tick as stored. */
export interface ScheduleTickRecord extends ScheduleTick {
  /** The latest claim. It stays once the tick has fired. */
  claim: TickClaim;
  /** 1 for the first claim, one more with every take-over. */
  epoch: number;
  /** The request the tick fired, once it has (set by {@link ScheduleStore.fireTick}). */
  requestId?: string;
}

export type TickClaimResult =
  /** Claimed: the tick is this host's to fire under `record.epoch`. */
  | { ok: true; record: ScheduleTickRecord }
  /**
   * Not claimed: `current` is the tick as stored (fired, or claimed by a host whose claim still holds); or, for a
   * tick with no record that is older than its schedule's newest stored tick, that newer tick (`current.at !==
   * tick.at`: the tick was superseded, too late to fire).
   */
  | { ok: false; current: ScheduleTickRecord };

export interface ScheduleStore {
  /**
   * Claims a tick for `claim.hostId` until `claim.until`. Lands when the tick has no record (epoch 1), or when its
   * record has not fired and its claim has expired (`claim.until <= now`): a take-over, epoch one more. Anything
   * else is refused as data: a tick fired or claimed, and a tick with no record older than the schedule's newest
   * stored tick (superseded; so a store may drop a fired tick older than its schedule's newest, and keeps the
   * others). The check and the write are one atomic step against every
   * other claim or fire of that tick in the store's backing storage (across processes on a store whose
   * `crossProcess` is true), so two hosts never both claim one epoch.
   */
  claimTick(tick: ScheduleTick, claim: TickClaim, now: number): Promise<TickClaimResult>;
  /**
   * Marks a claimed tick fired with `requestId`, the request it starts. Refused with `FlowError` `lease-lost`, storing
   * nothing, when the tick's stored epoch is no longer `epoch` (another host took it over), when it has fired already,
   * or when it has no record. The check is atomic with the write, as {@link claimTick}'s.
   */
  fireTick(tick: ScheduleTick, epoch: number, requestId: string): Promise<void>;
  /** The stored tick of a schedule with the greatest `at` (claimed or fired), or `null` when it has none. */
  latestTick(flowId: string, schedule: string): Promise<ScheduleTickRecord | null>;
}
