import type {
  ActiveRequestEntry,
  NewRequestEvent,
  RequestPatch,
  RequestRecord,
  SessionRecord,
} from "@flowrt/core";

/**
 * The life the effects kill test's writer runs each request through: version 1 is the create, and the update from
 * version `v` is step `v` below. What a request must hold at each version follows from it (see {@link expectedAt}).
 */
export const EFFECT_STEPS = ["create", "claim", "progress", "progress", "end"] as const;

const AT = "2026-01-01T00:00:00.000Z";

export function effectsRequest(round: number, w: number, i: number): RequestRecord {
  return {
    id: `r-${round}-${w}-${i}`,
    sessionId: `s-${round}-${w}-${i}`,
    flowId: "flow",
    flowKind: "flow",
    action: "act",
    userId: `u-${w}`,
    status: "queued",
    input: {},
    metadata: { origin: "action" },
    durable: true,
    version: 1,
    createdAt: AT,
  };
}

export function effectsSession(request: RequestRecord): SessionRecord {
  return {
    id: request.sessionId,
    flowId: "flow",
    flowKind: "flow",
    userId: request.userId,
    rootSessionId: request.sessionId,
    metadata: {},
    createdAt: AT,
  };
}

export function entryOf(request: RequestRecord): ActiveRequestEntry {
  return {
    requestId: request.id,
    sessionId: request.sessionId,
    flowId: request.flowId,
    userId: request.userId,
    action: request.action,
    startedAt: AT,
  };
}

const event = (request: RequestRecord, type: string, n: number): NewRequestEvent => ({
  requestId: request.id,
  type,
  at: AT,
  data: { n },
});

/** The update from `version`: its patch, whether it enters (`true`) or leaves (`false`) the registry, its events. */
export function stepOf(
  request: RequestRecord,
  version: number,
): { name: string; patch: RequestPatch; active?: boolean; events: NewRequestEvent[] } {
  const name = EFFECT_STEPS[version]!;
  if (name === "claim")
    return {
      name,
      patch: { status: "running" },
      active: true,
      events: [event(request, "request.started", 1)],
    };
  if (name === "end")
    return {
      name,
      patch: { status: "completed", completedAt: AT },
      active: false,
      events: [event(request, "block.completed", version), event(request, "request.completed", version)],
    };
  return {
    name,
    patch: {},
    events: [event(request, "block.started", version), event(request, "block.completed", version)],
  };
}

/** What a stored request at `version` holds with it: how many events (the last one's type) and whether it is active. */
export function expectedAt(version: number): { events: number; lastType?: string; active: boolean } {
  let events = 0;
  let active = false;
  let lastType: string | undefined;
  const probe = effectsRequest(0, 0, 0);
  for (let v = 1; v < version; v++) {
    const step = stepOf(probe, v);
    events += step.events.length;
    lastType = step.events.at(-1)?.type ?? lastType;
    if (step.active !== undefined) active = step.active;
  }
  return { events, active, ...(lastType === undefined ? {} : { lastType }) };
}
