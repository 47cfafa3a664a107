import { FlowError, type FlowStores } from "@flowrt/core";
import { addRemoval, noRemoval, type RemovalCounts, type SessionRemover } from "./session-remover.js";

/** Whose data `host.eraseUser` removes: a user, or only what they have in one org. */
export interface EraseUserOptions {
  userId: string;
  /** Only the user's sessions and requests in this org; their user-scope state, which no org owns, is kept. */
  orgId?: string;
}

/** How many sessions are listed at once while erasing. */
const SESSION_PAGE = 100;

function checkId(name: string, value: unknown): void {
  if (typeof value !== "string" || value === "") {
    throw new FlowError("invalid-request", `eraseUser needs a non-empty string ${name}.`, {
      details: { field: name },
    });
  }
}

/**
 * Erases a user's data (an administrative call: no resolver, no route): every session of theirs in every flow,
 * each removed as `DELETE /sessions/:id` removes it (running requests aborted and awaited, the sessions beneath
 * it, everything stored under it); then their user-scope state, resources and content in every bucket (every
 * isolated flow's included); then every request record of theirs that is left (with its events and active
 * entry), after stopping any still running. Org-scope data is kept: it is the org's. With `orgId`, only the
 * user's sessions and requests in that org go, and their user-scope data stays. Counts what went; calling it
 * again removes nothing more (idempotent). Request records removed in the last step count in `requests` only
 * (the store says how many requests went, not how many events).
 */
export async function eraseUser(
  deps: { stores: FlowStores; remover: SessionRemover; stopRequest: (requestId: string) => Promise<void> },
  options: EraseUserOptions,
): Promise<RemovalCounts> {
  checkId("userId", options?.userId);
  if (options.orgId !== undefined) checkId("orgId", options.orgId);
  const { userId, orgId } = options;
  const { stores, remover } = deps;
  const counts = noRemoval();
  // Each pass lists the newest sessions left: a removed session (and those beneath it) leaves the listing.
  const done = new Set<string>();
  for (;;) {
    const { items } = await stores.sessions.list({
      userId,
      ...(orgId !== undefined ? { orgId } : {}),
      limit: SESSION_PAGE,
    });
    const left = items.filter((session) => !done.has(session.id));
    if (left.length === 0) {
      if (items.length > 0) {
        throw new FlowError(
          "store-error",
          `The store still lists session "${items[0]!.id}" after removing it; eraseUser stopped.`,
        );
      }
      break;
    }
    for (const session of left) {
      done.add(session.id);
      await remover.removeTree(session, counts);
    }
  }
  if (orgId === undefined) addRemoval(counts, await stores.scopeState.removeScope("user", userId));
  // Requests of theirs not under a session removed above (their session already gone): still running ones are
  // stopped first, so no run writes after its record is removed.
  const active = await stores.requests.listActive({ userId });
  await Promise.all(
    active
      .filter((entry) => orgId === undefined || entry.orgId === orgId)
      .map((entry) => deps.stopRequest(entry.requestId)),
  );
  counts.requests += await stores.requests.removeByUser(userId, orgId !== undefined ? { orgId } : undefined);
  return counts;
}
