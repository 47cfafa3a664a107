import type { FlowStores, Principal } from "@flowrt/core";
import type { AccessControl } from "../access/access-control.js";
import type { Caller } from "../access/caller.js";
import { type ListingQuery, listingScopes } from "../access/listing-scope.js";
import { canRead } from "../access/ownership.js";
import type { HostedSchedule } from "./scheduler.js";

/** A schedule as `GET /schedules` shows it. */
export interface ScheduleView {
  flowId: string;
  name: string;
  cron: string;
  timezone: string;
  catchUp: "none" | "latest";
  /** The principal its runs act as. */
  userId: string;
  orgId?: string;
  sessionId?: string;
  /** The next tick (ISO 8601), or `null` when the expression has none left. */
  nextTickAt: string | null;
  /** The schedule's newest stored tick: when, and the request it started once it has fired. */
  lastTick: { at: string; requestId?: string } | null;
}

/**
 * The schedules a caller may see: those whose runs act as them, scoped like every listing (the caller each flow's
 * resolver identifies, `userId` and `flowId` only narrowing, never refused; an unidentified caller sees none). A
 * schedule is shown to the principal it runs as, under the same owner rules as their sessions (a caller whose org
 * or tenant contradicts the schedule's sees nothing of it); members of an org do not see each other's schedules.
 * Flows that no resolver governs (development mode) list all their schedules.
 */
export async function listSchedules(
  access: AccessControl,
  stores: FlowStores,
  schedules: readonly HostedSchedule[],
  caller: Caller,
  query: ListingQuery = {},
  now = Date.now(),
): Promise<ScheduleView[]> {
  const scopes = await listingScopes(access, caller, query);
  const visible = schedules.filter(({ flow, cron }) => {
    const { principal } = cron.definition;
    const owner: Principal = { userId: principal.userId };
    if (principal.orgId !== undefined) owner.orgId = principal.orgId;
    if (principal.tenantId !== undefined) owner.tenantId = principal.tenantId;
    return scopes.some(
      (scope) =>
        scope.flowIds.includes(flow.id) &&
        (scope.userId === undefined || scope.userId === owner.userId) &&
        (scope.owner === undefined || canRead(owner, scope.owner)),
    );
  });
  return Promise.all(
    visible.map(async ({ flow, cron }): Promise<ScheduleView> => {
      const { definition } = cron;
      const next = cron.next(now);
      const last = await stores.schedules.latestTick(flow.id, definition.name);
      const view: ScheduleView = {
        flowId: flow.id,
        name: definition.name,
        cron: definition.cron,
        timezone: definition.timezone,
        catchUp: definition.catchUp,
        userId: definition.principal.userId,
        nextTickAt: next === null ? null : new Date(next).toISOString(),
        lastTick:
          last === null
            ? null
            : {
                at: new Date(last.at).toISOString(),
                ...(last.requestId !== undefined ? { requestId: last.requestId } : {}),
              },
      };
      if (definition.principal.orgId !== undefined) view.orgId = definition.principal.orgId;
      if (definition.sessionId !== undefined) view.sessionId = definition.sessionId;
      return view;
    }),
  );
}
