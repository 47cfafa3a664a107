import type { ActiveRequestEntry, FlowStores, SessionRecord } from "@flowrt/core";
import type { AccessControl } from "../access/access-control.js";
import type { Caller } from "../access/caller.js";
import { type ListingQuery, listingScopes } from "../access/listing-scope.js";
import { canRead, isOwner, orgsDiffer } from "../access/ownership.js";

/** The most rows a listing answers. */
export const LISTING_LIMIT = 200;

const newestFirst = (a: SessionRecord, b: SessionRecord) =>
  a.createdAt === b.createdAt ? (a.id < b.id ? 1 : -1) : a.createdAt < b.createdAt ? 1 : -1;

/**
 * The caller's sessions, active requests and a conversation's children. Who the caller is for each flow, and which
 * rows they may see, is the access layer's ({@link listingScopes}, `canRead`); this asks the store per scope and
 * merges.
 */
export class SessionListings {
  constructor(
    private readonly stores: FlowStores,
    private readonly access: AccessControl,
  ) {}

  /**
   * The caller's sessions across flows (see {@link listingScopes}); `userId` and `flowId` (one value or several,
   * each of which a row must match) only narrow. At most {@link LISTING_LIMIT}, the most recent first.
   */
  async listSessions(caller: Caller, query: ListingQuery = {}): Promise<SessionRecord[]> {
    const pages = await Promise.all(
      (await listingScopes(this.access, caller, query)).map(async (scope) => {
        const page = await this.stores.sessions.list({
          ...(scope.userId !== undefined ? { userId: scope.userId } : {}),
          flowIds: scope.flowIds,
          limit: LISTING_LIMIT,
        });
        // The store narrows by user; the addressed routes' owner rules (tenant, org) apply too.
        const owner = scope.owner;
        return owner ? page.items.filter((session) => canRead(session, owner)) : page.items;
      }),
    );
    if (pages.length === 1) return pages[0]!;
    return pages.flat().sort(newestFirst).slice(0, LISTING_LIMIT);
  }

  /** The caller's active requests, scoped as {@link listSessions}, oldest first. */
  async listActiveRequests(caller: Caller, query: ListingQuery = {}): Promise<ActiveRequestEntry[]> {
    const lists = await Promise.all(
      (await listingScopes(this.access, caller, query)).map(async (scope) => {
        const entries = await this.stores.requests.listActive({
          ...(scope.userId !== undefined ? { userId: scope.userId } : {}),
          flowIds: scope.flowIds,
        });
        const owner = scope.owner;
        if (!owner || entries.length === 0) return entries;
        // An entry carries no tenant or org: its session does (as on the addressed request routes).
        const ids = [...new Set(entries.map((entry) => entry.sessionId))];
        const sessions = new Map(
          await Promise.all(ids.map(async (id) => [id, await this.stores.sessions.get(id)] as const)),
        );
        return entries.filter((entry) => {
          const session = sessions.get(entry.sessionId);
          return !session || canRead(session, owner);
        });
      }),
    );
    // Oldest first across the flows' groups, as one store listing answers.
    return lists.length === 1
      ? lists[0]!
      : lists.flat().sort((a, b) => (a.startedAt < b.startedAt ? -1 : a.startedAt > b.startedAt ? 1 : 0));
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
      (child) => !orgsDiffer(child, session) && (principal === undefined || isOwner(child, principal)),
    );
  }
}
