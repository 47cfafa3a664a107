import type { FlowStores, ScopeAddress } from "@flowrt/core";

/** The sessions the removal kill test's writer fills and removes, and what each one holds. */

/** The buckets a session's scope state and resources are written to. */
export const REMOVAL_BUCKETS = ["shared", "flow-x"] as const;

/** Events appended to the session's two requests. */
export const REMOVAL_EVENTS = [3, 1] as const;

export function removalSessionId(round: number, n: number): string {
  return `rm-${round}-${n}`;
}

export function removalRequestIds(sessionId: string): [string, string] {
  return [`${sessionId}/r0`, `${sessionId}/r1`];
}

function addressOf(sessionId: string, bucket: string): ScopeAddress {
  return { scope: "session", scopeId: sessionId, bucket };
}

/** Writes one session and everything under it. */
export async function fillSession(stores: FlowStores, sessionId: string): Promise<void> {
  await stores.sessions.create({
    id: sessionId,
    flowId: "f",
    flowKind: "f",
    userId: "u",
    rootSessionId: sessionId,
    title: "kept until removed",
    metadata: { n: 1 },
    createdAt: new Date().toISOString(),
  });
  for (const [i, requestId] of removalRequestIds(sessionId).entries()) {
    await stores.requests.create({
      id: requestId,
      sessionId,
      flowId: "f",
      flowKind: "f",
      action: "a",
      userId: "u",
      status: "running",
      input: { i },
      metadata: {},
      durable: false,
      version: 1,
      createdAt: new Date().toISOString(),
    });
    for (let n = 0; n < REMOVAL_EVENTS[i]!; n++)
      await stores.requests.appendEvent({ requestId, type: "text.delta", at: "t", data: { n } });
  }
  const [first] = removalRequestIds(sessionId);
  await stores.requests.markActive({
    requestId: first,
    sessionId,
    flowId: "f",
    userId: "u",
    action: "a",
    startedAt: "t",
  });
  for (const bucket of REMOVAL_BUCKETS) {
    const address = addressOf(sessionId, bucket);
    await stores.scopeState.put(address, { bucket }, { type: "absent" });
    await stores.resources.putState(address, "notes/a", { a: 1 }, { type: "absent" });
    await stores.resources.putContent(address, "notes/a", "body");
    await stores.resources.putState(address, "notes/a/deep", { deep: 1 }, { type: "absent" });
    await stores.resources.putState(address, "notes/gone", { gone: 1 }, { type: "absent" });
    await stores.resources.deleteState(address, "notes/gone", { type: "any" });
  }
}

/** How many of a filled session's parts a store still holds (0 when all are gone), and its record. */
export async function readSession(stores: FlowStores, sessionId: string) {
  const parts: string[] = [];
  const requestIds = removalRequestIds(sessionId);
  const active = new Set((await stores.requests.listActive({})).map((entry) => entry.requestId));
  for (const [i, requestId] of requestIds.entries()) {
    if ((await stores.requests.get(requestId)) !== null) parts.push(`request ${i}`);
    const events = (await stores.requests.readEvents(requestId)).length;
    if (events > 0) parts.push(`${events} events of request ${i}`);
    if (active.has(requestId)) parts.push(`active entry of request ${i}`);
  }
  if ((await stores.requests.listBySession(sessionId, { limit: 10 })).length > 0)
    parts.push("listed requests");
  for (const bucket of REMOVAL_BUCKETS) {
    const address = addressOf(sessionId, bucket);
    if ((await stores.scopeState.get(address)) !== null) parts.push(`state in ${bucket}`);
    const listed = await stores.resources.list(address);
    for (const item of listed.items) parts.push(`${item.key} in ${bucket}`);
    if ((await stores.resources.getContent(address, "notes/a")) !== null) parts.push(`content in ${bucket}`);
  }
  return { record: await stores.sessions.get(sessionId), parts };
}

/** Every part {@link readSession} reports for a session nothing was removed from. */
export const ALL_PARTS = [
  "request 0",
  "3 events of request 0",
  "active entry of request 0",
  "request 1",
  "1 events of request 1",
  "listed requests",
  ...REMOVAL_BUCKETS.flatMap((bucket) => [
    `state in ${bucket}`,
    `notes/a in ${bucket}`,
    `notes/a/deep in ${bucket}`,
    `content in ${bucket}`,
  ]),
];
