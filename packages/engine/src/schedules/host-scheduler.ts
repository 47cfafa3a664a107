import { type HostedSchedule, Scheduler } from "./scheduler.js";
import { type ScheduledRunDeps, startScheduledRun } from "./start-scheduled-run.js";

/**
 * The scheduler of a host's schedules, started: each fired tick becomes a request through {@link startScheduledRun}
 * with the host's own services; a claim holds as long as the runner's lease. `undefined` when no flow has a
 * schedule (no timer is armed).
 */
export function startHostScheduler(
  schedules: readonly HostedSchedule[],
  host: ScheduledRunDeps & { hostId: string },
): Scheduler | undefined {
  if (schedules.length === 0) return undefined;
  const { hostId, ...runs } = host;
  const scheduler = new Scheduler(schedules, {
    stores: runs.stores,
    logger: runs.logger,
    hostId,
    claimMs: runs.runner.leaseMs,
    startRun: (schedule, at, requestId) =>
      startScheduledRun(runs, schedule.flow, schedule.cron.definition, at, requestId),
  });
  scheduler.start();
  return scheduler;
}
