import { DefinitionError, type ScheduleDefinition } from "@flowrt/core";
import { Cron } from "croner";

/** Whether the runtime knows `timeZone` as an IANA zone (or `UTC`). */
function knownTimeZone(timeZone: string): boolean {
  try {
    new Intl.DateTimeFormat("en-US", { timeZone });
    return true;
  } catch {
    return false;
  }
}

/**
 * One schedule's tick times, from its cron expression read in its time zone (croner). Ticks are whole seconds;
 * across a daylight-saving change a wall-clock time that does not exist runs at the first instant after the gap,
 * and one that happens twice runs once, at its first occurrence (croner's reading).
 */
export class CronSchedule {
  private readonly cron: Cron;

  /**
   * Parses the expression and checks the zone; a `DefinitionError` naming the flow and the schedule when either is
   * wrong, or when the expression has no tick after `now` (`0 0 30 2 *`, February 30th).
   */
  constructor(
    readonly flowId: string,
    readonly definition: ScheduleDefinition,
    now = Date.now(),
  ) {
    const where = `Flow "${flowId}" schedule "${definition.name}"`;
    if (!knownTimeZone(definition.timezone)) {
      throw new DefinitionError(
        `${where}: "timezone" ${JSON.stringify(definition.timezone)} is not an IANA time zone (e.g. "Europe/Berlin", "UTC").`,
        { flow: flowId, schedule: definition.name, field: "timezone" },
      );
    }
    try {
      this.cron = new Cron(definition.cron, { timezone: definition.timezone });
    } catch (error) {
      throw new DefinitionError(
        `${where}: "cron" ${JSON.stringify(definition.cron)} is not a cron expression: ${error instanceof Error ? error.message : String(error)}`,
        { flow: flowId, schedule: definition.name, field: "cron" },
      );
    }
    if (this.next(now) === null) {
      throw new DefinitionError(`${where}: "cron" ${JSON.stringify(definition.cron)} never fires.`, {
        flow: flowId,
        schedule: definition.name,
        field: "cron",
      });
    }
  }

  get name(): string {
    return this.definition.name;
  }

  /** The first tick strictly after `ms` (ms since the epoch), or `null` when there is none. */
  next(ms: number): number | null {
    return this.cron.nextRun(new Date(ms))?.getTime() ?? null;
  }

  /** The latest tick at or before `ms`, or `null` when there is none. */
  latest(ms: number): number | null {
    return this.cron.previousRuns(1, new Date(ms + 1))[0]?.getTime() ?? null;
  }
}
