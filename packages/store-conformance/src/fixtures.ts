import { randomUUID } from "node:crypto";
import type { RequestRecord, ScopeAddress, SessionRecord } from "@flowrt/core";
import { SHARED_BUCKET } from "@flowrt/core";

/**
 * Every case uses fresh random ids: a store under test may be shared (one Postgres database for the
 * whole run) and is never assumed to be empty.
 */
export function uid(label: string): string {
  return `${label}-${randomUUID()}`;
}

/** An ISO timestamp `offsetMs` after a fixed base, so ordering by `createdAt` is deterministic. */
export function isoAt(baseMs: number, offsetMs = 0): string {
  return new Date(baseMs + offsetMs).toISOString();
}

export function sessionRecord(overrides: Partial<SessionRecord> = {}): SessionRecord {
  const id = overrides.id ?? uid("session");
  return {
    id,
    flowId: "flow-a",
    flowKind: "kind-a",
    userId: uid("user"),
    rootSessionId: id,
    metadata: {},
    createdAt: new Date().toISOString(),
    ...overrides,
  };
}

export function requestRecord(overrides: Partial<RequestRecord> = {}): RequestRecord {
  return {
    id: uid("request"),
    sessionId: uid("session"),
    flowId: "flow-a",
    flowKind: "kind-a",
    action: "act",
    userId: uid("user"),
    status: "queued",
    input: { n: 1 },
    metadata: { origin: "action" },
    durable: false,
    version: 1,
    createdAt: new Date().toISOString(),
    ...overrides,
  };
}

export function sessionAddress(scopeId = uid("session"), bucket = SHARED_BUCKET): ScopeAddress {
  return { scope: "session", scopeId, bucket };
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/**
 * Polls until `check` stops throwing. Live notifications may arrive asynchronously (Postgres
 * LISTEN/NOTIFY), so a subscriber test waits for them instead of asserting at once.
 */
export async function eventually(check: () => void, timeoutMs = 3000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      check();
      return;
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await sleep(10);
    }
  }
}
