import { type FlowStores, hasErrorCode, type ScheduleTick } from "@flowrt/core";
import type { FlowRegistry, RegisteredFlow } from "../flows/registry.js";
import { describeError, type HostLogger } from "../logger.js";
import { newId } from "../requests/new-id.js";
import { CronSchedule } from "./cron-schedule.js";

/** The longest delay `setTimeout` keeps (about 24.8 days); a tick further away is armed again on waking. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/** One schedule of one flow, parsed. */
export interface HostedSchedule {
  flow: RegisteredFlow;
  cron: CronSchedule;
}

/**
 * Parses every schedule of the host's flows (cron expression, time zone): the host's startup check. Throws the
 * first schedule's `DefinitionError`.
 */
export function hostedSchedules(registry: FlowRegistry, now = Date.now()): HostedSchedule[] {
  return registry.flows.flatMap((flow) =>
    Object.values(flow.definition.schedules).map((definition) => ({
      flow,
      cron: new CronSchedule(flow.id, definition, now),
    })),
  );
}

export interface SchedulerOptions {
  stores: FlowStores;
  logger: HostLogger;
  hostId: string;
  /** How long a claim on a tick holds before another host may take the tick over (the host's `leaseMs`). */
  claimMs: number;
  /** Starts the run of a tick this host fired, under the request id recorded on the tick. */
  startRun: (schedule: HostedSchedule, at: number, requestId: string) => Promise<unknown>;
}

/**
 * Fires the host's schedules. Each tick fires once across every host sharing the store: on a tick every host tries
 * to claim it; the one whose claim lands marks it fired under that claim (refused, `lease-lost`, once another host
 * took it over) and starts its run. A host that loses the claim to one still holding it looks again when that claim
 * lapses, and takes the tick over if it has not fired (its holder froze or died). A host that wakes late (a paused
 * process, a blocked event loop) fires only the latest tick due, never a backlog. At start, a schedule with
 * `catchUp: "latest"` fires its most recent tick if it is due and newer than the schedule's newest stored tick (the
 * host, or every host, was down); a schedule that never fired has nothing to catch up. Timers never keep the
 * process alive.
 */
export class Scheduler {
  private readonly timers = new Set<NodeJS.Timeout>();
  private readonly running = new Set<Promise<void>>();
  private stopped = false;

  constructor(
    private readonly schedules: readonly HostedSchedule[],
    private readonly options: SchedulerOptions,
  ) {}

  /** Arms every schedule's next tick and catches up on missed ones. */
  start(): void {
    for (const schedule of this.schedules) {
      const now = Date.now();
      this.arm(schedule, now);
      if (schedule.cron.definition.catchUp === "latest") this.track(this.catchUp(schedule, now));
    }
  }

  /** Stops arming ticks and waits for the ticks being fired. Idempotent. */
  async stop(): Promise<void> {
    this.stopped = true;
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
    while (this.running.size > 0) await Promise.all([...this.running]);
  }

  private timer(delayMs: number, run: () => void): void {
    if (this.stopped) return;
    const timer = setTimeout(
      () => {
        this.timers.delete(timer);
        if (!this.stopped) run();
      },
      Math.min(Math.max(0, delayMs), MAX_TIMER_MS),
    );
    timer.unref();
    this.timers.add(timer);
  }

  /** Arms the first tick after `from`. */
  private arm(schedule: HostedSchedule, from: number): void {
    const next = schedule.cron.next(from);
    if (next !== null) this.timer(next - Date.now(), () => this.wake(schedule, next));
  }

  private wake(schedule: HostedSchedule, armedFor: number): void {
    const now = Date.now();
    // Woken before its tick (a delay longer than a timer holds): armed again.
    if (now < armedFor) {
      this.timer(armedFor - now, () => this.wake(schedule, armedFor));
      return;
    }
    // On time this is the tick armed for; woken late, the latest tick due (the ones between are skipped).
    const due = schedule.cron.latest(now) ?? armedFor;
    this.arm(schedule, now);
    this.track(this.fire(schedule, due));
  }

  private async catchUp(schedule: HostedSchedule, now: number): Promise<void> {
    const due = schedule.cron.latest(now);
    if (due === null) return;
    const { flow, cron } = schedule;
    let newest: Awaited<ReturnType<FlowStores["schedules"]["latestTick"]>>;
    try {
      newest = await this.options.stores.schedules.latestTick(flow.id, cron.name);
    } catch (error) {
      this.options.logger.warn(
        { flowId: flow.id, schedule: cron.name, error: describeError(error) },
        "schedule catch-up could not read its latest tick",
      );
      return;
    }
    // Never fired: nothing was missed. Fired at or after the due tick: nothing to catch up.
    if (newest === null || newest.at > due || (newest.at === due && newest.requestId !== undefined)) return;
    this.options.logger.info(
      { flowId: flow.id, schedule: cron.name, tick: new Date(due).toISOString() },
      "schedule catching up on its latest missed tick",
    );
    await this.fire(schedule, due);
  }

  /** Claims the tick, marks it fired under the claim and starts its run; every failure is logged, none thrown. */
  private async fire(schedule: HostedSchedule, at: number): Promise<void> {
    if (this.stopped) return;
    const { flow, cron } = schedule;
    const tick: ScheduleTick = { flowId: flow.id, schedule: cron.name, at };
    const { stores, hostId, claimMs, logger } = this.options;
    const fields = { flowId: flow.id, schedule: cron.name, tick: new Date(at).toISOString() };
    try {
      const now = Date.now();
      const claimed = await stores.schedules.claimTick(tick, { hostId, until: now + claimMs }, now);
      if (!claimed.ok) {
        const { current } = claimed;
        // Held by a host that has not fired it yet: look again once its claim lapses.
        if (current.at === at && current.requestId === undefined) {
          this.timer(current.claim.until - Date.now() + 1, () => this.track(this.fire(schedule, at)));
        }
        return;
      }
      // Claimed: fired even if the host began closing meanwhile (`stop()` waits for it, and the runner drains after).
      const requestId = newId();
      try {
        await stores.schedules.fireTick(tick, claimed.record.epoch, requestId);
      } catch (error) {
        if (!hasErrorCode(error, "lease-lost")) throw error;
        // Frozen past the claim, and another host took the tick over: it is theirs to fire.
        logger.warn({ ...fields, error: describeError(error) }, "scheduled tick taken over; not fired here");
        return;
      }
      try {
        await this.options.startRun(schedule, at, requestId);
      } catch (error) {
        logger.error(
          { ...fields, requestId, error: describeError(error) },
          "scheduled tick fired but its run could not be started",
        );
      }
    } catch (error) {
      logger.warn({ ...fields, error: describeError(error) }, "scheduled tick could not be claimed");
    }
  }

  private track(work: Promise<void>): void {
    this.running.add(work);
    void work.finally(() => this.running.delete(work));
  }
}
