import {
  FlowError,
  type FlowStores,
  hasErrorCode,
  isFlowError,
  type Principal,
  type RequestRecord,
  type ScheduleDefinition,
  type ScheduledTick,
  type SessionRecord,
} from "@flowrt/core";
import type { AccessControl } from "../access/access-control.js";
import { assertAddress, assertBinding } from "../access/ownership.js";
import { parseBlockInput } from "../execution/blocks/validate-io.js";
import type { FlowRegistry, RegisteredFlow } from "../flows/registry.js";
import { describeError, type HostLogger } from "../logger.js";
import type { NewRequest } from "../requests/new-request.js";
import type { RequestRunner } from "../requests/request-runner.js";
import type { SessionService } from "../sessions/session-service.js";

/** What starting a scheduled run needs of the host. */
export interface ScheduledRunDeps {
  stores: FlowStores;
  access: AccessControl;
  registry: FlowRegistry;
  sessions: SessionService;
  runner: RequestRunner;
  logger: HostLogger;
}

/**
 * Starts the run of a tick this host has fired (its id recorded on the tick): the schedule's asserted principal (no
 * resolver: the same rules as a custom inbound adapter's asserted principal), its session (the named one, found or
 * created and bound to that principal; else a fresh ephemeral one, which retention removes with the request), its
 * input (a value or a function of the tick) checked by the block's schema, and the request, `source: "scheduled"`.
 * A tick whose input or session refuses it is a failed request with the tick's id, as a webhook delivery's would
 * be: its record says why. A store failure is thrown (the tick stays fired: logged by the scheduler).
 */
export async function startScheduledRun(
  deps: ScheduledRunDeps,
  flow: RegisteredFlow,
  schedule: ScheduleDefinition,
  at: number,
  requestId: string,
): Promise<RequestRecord> {
  const tick: ScheduledTick = { schedule: schedule.name, scheduledAt: new Date(at).toISOString() };
  // The asserted-principal path of custom inbound adapters and webhooks: a caller of source `scheduled` naming its
  // principal, which wins over every resolver (none is asked).
  const { principal } = await deps.access.principalFor(flow, {
    source: "scheduled",
    principal: { ...schedule.principal },
  });
  const request = (session: SessionRecord): NewRequest => ({
    id: requestId,
    flow,
    session,
    principal,
    target: { type: "schedule", schedule },
    input: null,
    metadata: { origin: "scheduled", schedule: { name: schedule.name, scheduledAt: tick.scheduledAt } },
  });
  const named = await scheduleSession(deps, flow, schedule, principal);
  if ("refusal" in named) {
    deps.logger.warn(
      { flowId: flow.id, schedule: schedule.name, error: describeError(named.refusal) },
      "scheduled run refused by its session; recorded as a failed request",
    );
    const own = await deps.sessions.create({ flow, principal, metadata: { ephemeral: true } });
    return deps.runner.persistFailed(request(own), named.refusal);
  }
  const next = request(named.session);
  try {
    const input = typeof schedule.input === "function" ? await schedule.input(tick) : schedule.input;
    next.input = input;
    next.parsedBlockInput = { value: await parseBlockInput(schedule.block, input) };
  } catch (error) {
    return deps.runner.persistFailed(next, error);
  }
  try {
    return await deps.runner.submit(next);
  } catch (error) {
    // An input JSON cannot hold is a failing input like any other, recorded without it.
    if (!hasErrorCode(error, "invalid-input")) throw error;
    next.input = null;
    return deps.runner.persistFailed(next, error);
  }
}

/** The schedule's named session found or created for its principal, a fresh ephemeral one, or its refusal. */
async function scheduleSession(
  deps: ScheduledRunDeps,
  flow: RegisteredFlow,
  schedule: ScheduleDefinition,
  principal: Principal,
): Promise<{ session: SessionRecord } | { refusal: FlowError }> {
  if (schedule.sessionId === undefined) {
    return { session: await deps.sessions.create({ flow, principal, metadata: { ephemeral: true } }) };
  }
  const sessionId = schedule.sessionId;
  let session = await deps.stores.sessions.get(sessionId);
  if (!session) {
    try {
      session = await deps.sessions.create({ flow, principal, sessionId });
    } catch (error) {
      // Two hosts' ticks (or a client) raced to create it: the loser uses the winner's, then the checks apply.
      session = await deps.stores.sessions.get(sessionId);
      if (!session) throw error;
    }
  }
  if (session.deleting) {
    return { refusal: new FlowError("session-not-found", `No session "${sessionId}" exists.`) };
  }
  try {
    assertAddress(deps.registry, flow, session);
    assertBinding(session, principal);
  } catch (error) {
    if (!isFlowError(error)) throw error;
    return { refusal: error };
  }
  return { session };
}
