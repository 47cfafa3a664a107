import type { JsonObject, RequestRecord, SessionRecord } from "@flowrt/core";
import type { Caller, FlowHost } from "@flowrt/engine";
import { type FailedBlock, failedBlock } from "./failed-block.js";
import { flowCatalog } from "./flow-catalog.js";

/** How many sessions, and requests per session, the request listings look through (a development store). */
export const SCAN_SESSIONS = 50;
export const SCAN_REQUESTS = 50;

/** A request as the inspector lists it: the record's fields, and for a failed one the block that failed. */
export interface RequestEntry {
  id: string;
  sessionId: string;
  flowId: string;
  action: string;
  userId: string;
  status: RequestRecord["status"];
  origin: string;
  deliveryId?: string;
  createdAt: string;
  completedAt?: string;
  error?: RequestRecord["error"];
  failedBlock?: FailedBlock | null;
}

function text(value: unknown): string | undefined {
  return typeof value === "string" ? value : undefined;
}

async function requestEntry(host: FlowHost, record: RequestRecord): Promise<RequestEntry> {
  const webhook = record.metadata.webhook as JsonObject | undefined;
  const entry: RequestEntry = {
    id: record.id,
    sessionId: record.sessionId,
    flowId: record.flowId,
    action: record.action,
    userId: record.userId,
    status: record.status,
    origin: text(record.metadata.origin) ?? "action",
    createdAt: record.createdAt,
  };
  const deliveryId = text(webhook?.deliveryId);
  if (deliveryId !== undefined) entry.deliveryId = deliveryId;
  if (record.completedAt) entry.completedAt = record.completedAt;
  if (record.error) entry.error = record.error;
  if (record.status === "failed") {
    entry.failedBlock = failedBlock(await host.stores.requests.readEvents(record.id));
  }
  return entry;
}

function one(query: URLSearchParams, name: string): string | undefined {
  const value = query.get(name);
  return value === null || value === "" ? undefined : value;
}

/** The read-only answers of the inspector's JSON routes; every one runs the HTTP API's own checks for `caller`. */
export class InspectorApi {
  constructor(private readonly host: FlowHost) {}

  flows(): JsonObject {
    return { flows: flowCatalog(this.host) } as unknown as JsonObject;
  }

  /** The caller's sessions as `GET /sessions` lists them (every user's when no resolver is configured). */
  async sessions(caller: Caller, query: URLSearchParams): Promise<JsonObject> {
    const filter: { userId?: string; flowId?: string; cursor?: string; limit: number } = {
      limit: SCAN_SESSIONS,
    };
    const userId = one(query, "userId");
    const flowId = one(query, "flowId");
    const cursor = one(query, "cursor");
    if (userId !== undefined) filter.userId = userId;
    if (flowId !== undefined) filter.flowId = flowId;
    if (cursor !== undefined) filter.cursor = cursor;
    const page = await this.host.listSessionsPage(caller, filter);
    return {
      sessions: page.sessions.map(sessionEntry),
      nextCursor: page.nextCursor,
    } as unknown as JsonObject;
  }

  /** A session's unfiltered state and resources (`host.inspect`, the debug route) and its latest requests. */
  async session(caller: Caller, sessionId: string): Promise<JsonObject> {
    const inspected = await this.host.inspect(sessionId, caller);
    const page = await this.host.listSessionRequests(sessionId, caller, { limit: SCAN_REQUESTS });
    const requests = await Promise.all(page.requests.map((record) => requestEntry(this.host, record)));
    return { ...inspected, requests } as unknown as JsonObject;
  }

  /** A request (owner-checked as `GET /requests/:id`), its stored event log and, failed, its failing block. */
  async request(caller: Caller, requestId: string): Promise<JsonObject> {
    const record = await this.host.getRequest(requestId, caller);
    const events = await this.host.stores.requests.readEvents(record.id);
    const entry = await requestEntry(this.host, record);
    return {
      request: { ...entry, input: record.input, output: record.output ?? null },
      events,
    } as unknown as JsonObject;
  }

  /**
   * Requests across the caller's latest sessions, newest first, narrowed by `status` (`failed`) and `origin`
   * (`webhook`: the deliveries, each a request the webhook pipeline made). The engine keeps no delivery record
   * of its own: a delivery is the request it started, with its outcome.
   */
  async requests(caller: Caller, query: URLSearchParams): Promise<JsonObject> {
    const status = one(query, "status");
    const origin = one(query, "origin");
    const { sessions } = await this.host.listSessionsPage(caller, { limit: SCAN_SESSIONS });
    const pages = await Promise.all(
      sessions.map((session) => this.host.listSessionRequests(session.id, caller, { limit: SCAN_REQUESTS })),
    );
    const records = pages
      .flatMap((page) => page.requests)
      .filter((record) => status === undefined || record.status === status)
      .filter((record) => origin === undefined || (text(record.metadata.origin) ?? "action") === origin)
      .sort((a, b) => (a.createdAt < b.createdAt ? 1 : a.createdAt > b.createdAt ? -1 : 0));
    const requests = await Promise.all(records.map((record) => requestEntry(this.host, record)));
    return { requests } as unknown as JsonObject;
  }
}

function sessionEntry(session: SessionRecord) {
  return {
    id: session.id,
    flowId: session.flowId,
    flowKind: session.flowKind,
    userId: session.userId,
    ...(session.orgId ? { orgId: session.orgId } : {}),
    ...(session.title ? { title: session.title } : {}),
    createdAt: session.createdAt,
  };
}
