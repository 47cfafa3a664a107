import type { ActiveRequestEntry, FlowStores, RequestRecord, SessionRecord } from "@flowrt/core";
import type { AccessControl } from "../access/access-control.js";
import type { Caller } from "../access/caller.js";
import { type ListingQuery, type ListingScope, listingScopes } from "../access/listing-scope.js";
import { canRead, isOwner, orgsDiffer } from "../access/ownership.js";
import {
  encodeCursor,
  type ListingKind,
  type ListingPosition,
  type ListingWindow,
  listingWindow,
  type PageQuery,
} from "./listing-cursor.js";

/** The most rows a listing answers in one page. */
export const LISTING_LIMIT = 200;

/** One page of a listing: its rows, and the cursor of the next page (`null` on the last). */
export interface ListingPage<T> {
  items: T[];
  nextCursor: string | null;
}

/**
 * The page of `rows` (those after the previous page, in the listing's order, one more than the page asked for when
 * there are more): its first `limit`, and the cursor naming the last of them when rows are left over.
 */
function pageOf<T>(
  rows: T[],
  limit: number,
  kind: ListingKind,
  positionOf: (row: T) => ListingPosition,
): ListingPage<T> {
  const items = rows.slice(0, limit);
  const last = items[items.length - 1];
  return {
    items,
    nextCursor: rows.length > limit && last !== undefined ? encodeCursor(kind, positionOf(last)) : null,
  };
}

/** Newest first: `createdAt` descending, then `id` descending (the store's listing order). */
const newestFirst = (a: SessionRecord, b: SessionRecord) =>
  a.createdAt === b.createdAt ? (a.id < b.id ? 1 : -1) : a.createdAt < b.createdAt ? 1 : -1;

/** Oldest first: `startedAt` ascending, then the request id ascending. */
const oldestStartedFirst = (a: ActiveRequestEntry, b: ActiveRequestEntry) =>
  a.startedAt === b.startedAt
    ? a.requestId < b.requestId
      ? -1
      : a.requestId > b.requestId
        ? 1
        : 0
    : a.startedAt < b.startedAt
      ? -1
      : 1;

/** Whether an active entry comes after `position` in {@link oldestStartedFirst} order. */
const startedAfter = (entry: ActiveRequestEntry, position: ListingPosition) =>
  entry.startedAt > position.at || (entry.startedAt === position.at && entry.requestId > position.id);

/**
 * The caller's sessions, active requests, a session's requests and a conversation's children, a page at a time. Who
 * the caller is for each flow, and which rows they may see, is the access layer's ({@link listingScopes},
 * `canRead`); this asks the store per scope and merges. A session whose removal has begun (`deleting`) is in no
 * listing, nor are its requests.
 */
export class SessionListings {
  constructor(
    private readonly stores: FlowStores,
    private readonly access: AccessControl,
  ) {}

  /**
   * The caller's sessions across flows (see {@link listingScopes}), newest first; `userId` and `flowId` (one value
   * or several, each of which a row must match) only narrow. Keyset paging: every scope is asked, through the
   * store's `after`, for the rows following the cursor's position, and the scopes' rows are merged in the one order
   * they share, so a page costs O(scopes × (log n + limit)) at any depth.
   */
  async listSessions(
    caller: Caller,
    query: ListingQuery,
    window: ListingWindow,
  ): Promise<ListingPage<SessionRecord>> {
    const scopes = await listingScopes(this.access, caller, query);
    const rows = (await Promise.all(scopes.map((scope) => this.scopeSessions(scope, window)))).flat();
    if (scopes.length > 1) rows.sort(newestFirst);
    return pageOf(rows, window.limit, "sessions", (row) => ({ at: row.createdAt, id: row.id }));
  }

  /**
   * Up to `limit + 1` sessions of one scope after the window's position that the scope's caller may read (the
   * store narrows by user and flows; the addressed routes' owner rules, tenant and org, are applied here, asking
   * the store again past rows they leave out).
   */
  private async scopeSessions(scope: ListingScope, window: ListingWindow): Promise<SessionRecord[]> {
    const want = window.limit + 1;
    const rows: SessionRecord[] = [];
    let after = window.after ? { createdAt: window.after.at, id: window.after.id } : undefined;
    for (;;) {
      const page = await this.stores.sessions.list({
        ...(scope.userId !== undefined ? { userId: scope.userId } : {}),
        flowIds: scope.flowIds,
        ...(after ? { after } : {}),
        limit: want,
      });
      const owner = scope.owner;
      for (const session of page.items) {
        if (!session.deleting && (!owner || canRead(session, owner))) rows.push(session);
      }
      const last = page.items[page.items.length - 1];
      if (rows.length >= want || page.items.length < want || !last) return rows.slice(0, want);
      after = { createdAt: last.createdAt, id: last.id };
    }
  }

  /**
   * The caller's active requests, scoped as {@link listSessions}, oldest first. Paged in memory over the store's
   * listing (active requests are few: at most those running now), by the position of the last entry of the
   * previous page.
   */
  async listActiveRequests(
    caller: Caller,
    query: ListingQuery,
    window: ListingWindow,
  ): Promise<ListingPage<ActiveRequestEntry>> {
    const lists = await Promise.all(
      (await listingScopes(this.access, caller, query)).map(async (scope) => {
        const entries = await this.stores.requests.listActive({
          ...(scope.userId !== undefined ? { userId: scope.userId } : {}),
          flowIds: scope.flowIds,
        });
        if (entries.length === 0) return entries;
        // An entry carries no tenant or org: its session does (as on the addressed request routes), and whether
        // its removal has begun.
        const ids = [...new Set(entries.map((entry) => entry.sessionId))];
        const sessions = new Map(
          await Promise.all(ids.map(async (id) => [id, await this.stores.sessions.get(id)] as const)),
        );
        const owner = scope.owner;
        return entries.filter((entry) => {
          const session = sessions.get(entry.sessionId);
          if (session?.deleting) return false;
          return !owner || !session || canRead(session, owner);
        });
      }),
    );
    const all = lists.flat().sort(oldestStartedFirst);
    const after = window.after;
    const from = after === undefined ? 0 : all.findIndex((entry) => startedAfter(entry, after));
    const rest = from < 0 ? [] : all.slice(from);
    return pageOf(rest, window.limit, "active-requests", (row) => ({ at: row.startedAt, id: row.requestId }));
  }

  /** The requests that ran in a session, newest first, after the owner check (`listBySession`: keyset paging). */
  async listSessionRequests(
    sessionId: string,
    caller: Caller,
    window: ListingWindow,
  ): Promise<ListingPage<RequestRecord>> {
    const { session } = await this.access.authorizeSession(sessionId, caller);
    const rows = await this.stores.requests.listBySession(session.id, {
      limit: window.limit + 1,
      ...(window.after ? { after: { createdAt: window.after.at, id: window.after.id } } : {}),
    });
    return pageOf(rows, window.limit, "session-requests", (row) => ({ at: row.createdAt, id: row.id }));
  }

  /** One page of {@link listSessions} for a listing's `limit` and `cursor`, with the next page's cursor. */
  async sessionsPage(
    caller: Caller,
    query: ListingQuery & PageQuery,
  ): Promise<{ sessions: SessionRecord[]; nextCursor: string | null }> {
    const { items, nextCursor } = await this.listSessions(caller, query, listingWindow("sessions", query));
    return { sessions: items, nextCursor };
  }

  /** One page of {@link listActiveRequests}; `everyOne` lifts the page size's cap (the host's array listing). */
  async activeRequestsPage(
    caller: Caller,
    query: ListingQuery & PageQuery,
    everyOne = false,
  ): Promise<{ requests: ActiveRequestEntry[]; nextCursor: string | null }> {
    const window = listingWindow("active-requests", query);
    if (everyOne) window.limit = Number.MAX_SAFE_INTEGER;
    const { items, nextCursor } = await this.listActiveRequests(caller, query, window);
    return { requests: items, nextCursor };
  }

  /** One page of {@link listSessionRequests} for a listing's `limit` and `cursor`. */
  async sessionRequestsPage(
    sessionId: string,
    caller: Caller,
    page: PageQuery,
  ): Promise<{ requests: RequestRecord[]; nextCursor: string | null }> {
    const window = listingWindow("session-requests", page);
    const { items, nextCursor } = await this.listSessionRequests(sessionId, caller, window);
    return { requests: items, nextCursor };
  }

  /** Children of a conversation, scoped to the parent's owner, tenant, org and flow (from the stored parent). */
  async listChildren(sessionId: string, caller: Caller): Promise<SessionRecord[]> {
    const { session, flow, principal } = await this.access.authorizeSession(sessionId, caller);
    // The parent's flow as it governs (a parent stored without an owner is its kind's only instance's, and so are
    // the children dispatched beneath it).
    const children = await this.stores.sessions.listChildren(session.id, {
      userId: session.userId,
      ...(session.orgId ? { orgId: session.orgId } : {}),
      ...(session.tenantId ? { tenantId: session.tenantId } : {}),
      flowId: flow.id,
    });
    // A child of another org than a parent bound to none is not the parent's org's; one bound to a tenant under a
    // parent bound to none is listed only to a caller who owns it, as its own read would be (no endpoint
    // enumerates across owners).
    return children.filter(
      (child) =>
        !child.deleting &&
        !orgsDiffer(child, session) &&
        (principal === undefined || isOwner(child, principal)),
    );
  }
}
