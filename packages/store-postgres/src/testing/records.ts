/** Session and request records for tests, with unique ids unless given. */
import { randomUUID } from "node:crypto";
import type { RequestRecord, SessionRecord } from "@flowrt/core";

export function sessionRecord(overrides: Partial<SessionRecord> = {}): SessionRecord {
  const id = overrides.id ?? `session-${randomUUID()}`;
  return {
    id,
    flowId: "flow",
    flowKind: "kind",
    userId: "user",
    rootSessionId: id,
    metadata: {},
    createdAt: "2026-01-01T00:00:00.000Z",
    ...overrides,
  };
}

export function requestRecord(overrides: Partial<RequestRecord> = {}): RequestRecord {
  return {
    id: `request-${randomUUID()}`,
    sessionId: "session",
    flowId: "flow",
    flowKind: "kind",
    action: "act",
    userId: "user",
    status: "completed",
    input: null,
    metadata: {},
    durable: false,
    version: 1,
    createdAt: "2026-01-01T00:00:00.000Z",
    ...overrides,
  };
}
