import type { RequestRecord } from "@flowrt/core";
import { NewestFirst, type Positioned } from "./newest-first.js";

/** What listing, retention and removals need of a request, kept in memory; the record stays on disk. */
export type RequestSummary = Pick<
  RequestRecord,
  "id" | "sessionId" | "userId" | "orgId" | "status" | "durable" | "createdAt" | "completedAt"
>;

export function summaryOf(record: RequestRecord): RequestSummary {
  return {
    id: record.id,
    sessionId: record.sessionId,
    userId: record.userId,
    orgId: record.orgId,
    status: record.status,
    durable: record.durable,
    createdAt: record.createdAt,
    completedAt: record.completedAt,
  };
}

/**
 * Every stored request's summary by id, with each session's requests newest first (for keyset pages of a
 * session's requests) and each user's request ids (for removing a user's requests).
 */
export class RequestSummaries {
  private readonly byId = new Map<string, RequestSummary>();
  private readonly bySession = new Map<string, NewestFirst<Positioned>>();
  private readonly byUser = new Map<string, Set<string>>();

  constructor(summaries: Iterable<RequestSummary> = []) {
    for (const summary of summaries) this.set(summary);
  }

  get size(): number {
    return this.byId.size;
  }

  values(): IterableIterator<RequestSummary> {
    return this.byId.values();
  }

  /** Adds or replaces a request's summary. */
  set(summary: RequestSummary): void {
    const before = this.byId.get(summary.id);
    if (before !== undefined) this.unindex(before);
    this.byId.set(summary.id, summary);
    let session = this.bySession.get(summary.sessionId);
    if (session === undefined) this.bySession.set(summary.sessionId, (session = new NewestFirst()));
    session.set({ createdAt: summary.createdAt, id: summary.id });
    let user = this.byUser.get(summary.userId);
    if (user === undefined) this.byUser.set(summary.userId, (user = new Set()));
    user.add(summary.id);
  }

  delete(id: string): void {
    const summary = this.byId.get(id);
    if (summary === undefined) return;
    this.byId.delete(id);
    this.unindex(summary);
  }

  /** Up to `limit` ids of a session's requests, newest first, after `after` when given. */
  ofSession(sessionId: string, limit: number, after?: Positioned): string[] {
    const ids: string[] = [];
    if (limit <= 0) return ids;
    for (const entry of this.bySession.get(sessionId)?.from(after) ?? []) {
      ids.push(entry.id);
      if (ids.length >= limit) break;
    }
    return ids;
  }

  /** The ids of a user's requests, narrowed to one org when `orgId` is given. */
  ofUser(userId: string, orgId?: string): string[] {
    const ids: string[] = [];
    for (const id of this.byUser.get(userId) ?? []) {
      if (orgId === undefined || this.byId.get(id)?.orgId === orgId) ids.push(id);
    }
    return ids;
  }

  private unindex(summary: RequestSummary): void {
    const session = this.bySession.get(summary.sessionId);
    session?.delete(summary);
    if (session?.size === 0) this.bySession.delete(summary.sessionId);
    const user = this.byUser.get(summary.userId);
    user?.delete(summary.id);
    if (user?.size === 0) this.byUser.delete(summary.userId);
  }
}
