import {
  type FlowStores,
  type SessionRecord,
  type SessionRemoval,
  TERMINAL_REQUEST_STATUSES,
} from "@flowrt/core";
import type { AccessControl } from "../access/access-control.js";
import type { Caller } from "../access/caller.js";

/** What a removal took away, summed over every session it removed. */
export interface RemovalCounts {
  /** Session records (the one addressed, and every session started beneath it). */
  sessions: number;
  /** Request records, with their event logs and active entries. */
  requests: number;
  /** Events of those requests. */
  events: number;
  /** Scope state records. */
  states: number;
  /** Resource keys, live or tombstoned. */
  resources: number;
  /** Content rows. */
  contents: number;
}

export const noRemoval = (): RemovalCounts => ({
  sessions: 0,
  requests: 0,
  events: 0,
  states: 0,
  resources: 0,
  contents: 0,
});

/** Adds a store's counts (a {@link SessionRemoval}, a scope's) to `counts`. */
export function addRemoval(counts: RemovalCounts, removed: Partial<SessionRemoval>): void {
  counts.requests += removed.requests ?? 0;
  counts.events += removed.events ?? 0;
  counts.states += removed.states ?? 0;
  counts.resources += removed.resources ?? 0;
  counts.contents += removed.contents ?? 0;
}

/** How many of a session's requests are read at once while looking for those still queued or running. */
const REQUEST_PAGE = 200;

export interface SessionRemoverDependencies {
  stores: FlowStores;
  access: AccessControl;
  /** Starts a host never started, then refuses a closed one (a removal writes). */
  ready: () => Promise<void> | undefined;
  /**
   * Aborts a request as `POST /requests/:id/abort` does and settles once no run of it writes any more (one that
   * has already ended is left as it is).
   */
  stopRequest: (requestId: string) => Promise<void>;
  /** Settles once no run of the request is under way on this host (one that has just ended may still be writing). */
  whenSettled: (requestId: string) => Promise<void>;
}

/**
 * Removes sessions: `DELETE /sessions/:id` and what `eraseUser` removes. A session is first marked `deleting` (from
 * then on it reads as not found everywhere but a retried removal, and nothing new starts in it), its queued and
 * running requests are aborted and awaited, then the sessions started beneath it are removed the same way, depth
 * first, and the store removes the session with everything stored under it, the record last. Each step can be
 * repeated: a removal cut short (a crash, a store failing half-way) leaves the session marked, never one that reads
 * as alive with parts missing, and the owner's retried `DELETE` finishes it.
 */
export class SessionRemover {
  constructor(private readonly deps: SessionRemoverDependencies) {}

  /** `DELETE /sessions/:id`: the owner check reads the record as stored, so a retried removal is the owner's too. */
  async remove(sessionId: string, caller: Caller): Promise<RemovalCounts> {
    const starting = this.deps.ready();
    if (starting) await starting;
    const { session } = await this.deps.access.authorizeSession(sessionId, caller, { includeDeleting: true });
    return this.removeTree(session);
  }

  /** Removes `session` and every session beneath it, with no owner check (the caller made it). */
  async removeTree(session: SessionRecord, counts: RemovalCounts = noRemoval()): Promise<RemovalCounts> {
    await this.removeOne(session, counts, new Set());
    return counts;
  }

  private async removeOne(session: SessionRecord, counts: RemovalCounts, seen: Set<string>): Promise<void> {
    seen.add(session.id);
    const { stores } = this.deps;
    // Gone already (another removal finished it): nothing of it is left to remove.
    if (!(await stores.sessions.markDeleting(session.id))) return;
    const stopped = new Set<string>();
    await this.stopRequests(session.id, stopped, Number.POSITIVE_INFINITY);
    // Depth first; children are their parent's user's (a child is bound to its parent's owner when made).
    for (;;) {
      const children = (await stores.sessions.listChildren(session.id, { userId: session.userId })).filter(
        (child) => !seen.has(child.id),
      );
      if (children.length === 0) break;
      for (const child of children) await this.removeOne(child, counts, seen);
    }
    // A request accepted just as the session was marked (its call had read the session before) is the newest:
    // one more look at the first page stops it too before the records go.
    await this.stopRequests(session.id, stopped, 1);
    const removed = await stores.sessions.remove(session.id);
    if (removed === null) return;
    counts.sessions++;
    addRemoval(counts, removed);
  }

  /** Stops the session's queued and running requests, reading at most `pages` pages of its requests. */
  private async stopRequests(sessionId: string, stopped: Set<string>, pages: number): Promise<void> {
    const { stores } = this.deps;
    const stopping: Promise<void>[] = [];
    let after: { createdAt: string; id: string } | undefined;
    for (let page = 0; page < pages; page++) {
      const requests = await stores.requests.listBySession(sessionId, {
        limit: REQUEST_PAGE,
        ...(after ? { after } : {}),
      });
      for (const request of requests) {
        if (stopped.has(request.id)) continue;
        stopped.add(request.id);
        // An ended request's run here may still be writing its terminal event: awaited too.
        stopping.push(
          TERMINAL_REQUEST_STATUSES.includes(request.status)
            ? this.deps.whenSettled(request.id)
            : this.deps.stopRequest(request.id),
        );
      }
      const last = requests[requests.length - 1];
      if (requests.length < REQUEST_PAGE || !last) break;
      after = { createdAt: last.createdAt, id: last.id };
    }
    await Promise.all(stopping);
  }
}
