import {
  FlowError,
  OrgBindingMismatchError,
  type Principal,
  type SessionRecord,
  UserBindingMismatchError,
} from "@flowrt/core";
import type { FlowRegistry, RegisteredFlow } from "../flows/registry.js";

/**
 * The ownership rules, one function each. A session is bound to one user and org for life, and to its tenant
 * when it has one; its flow instance is its recorded owner. Every addressed route, action and webhook delivery
 * passes through these (see `access-control.ts` for the order they run in).
 */

/** Whether a session (or request) and a principal name different orgs, none being one of the values. */
export function orgsDiffer(session: { orgId?: string }, principal: { orgId?: string }): boolean {
  return (session.orgId ?? undefined) !== (principal.orgId ?? undefined);
}

/** What an owner check reads of a record: its user, org and tenant. */
export type Owned = Pick<SessionRecord, "userId" | "orgId" | "tenantId">;

/** Whether `principal` owns `session`: its user, and its tenant when the session has one. */
export function isOwner(session: Owned, principal: Principal): boolean {
  const tenantDiffers = session.tenantId !== undefined && session.tenantId !== principal.tenantId;
  return session.userId === principal.userId && !tenantDiffers;
}

/**
 * What a listing may show the caller: a session its addressed routes would serve them (the owner, and not an
 * org the caller contradicts). A schedule is listed by the same rule, its principal standing for the owner.
 */
export function canRead(session: Owned, principal: Principal): boolean {
  return isOwner(session, principal) && !(principal.orgId !== undefined && orgsDiffer(session, principal));
}

/** Owner check for addressed routes: 403 for another owner (user or tenant). */
export function assertOwner(session: SessionRecord, principal: Principal): void {
  if (!isOwner(session, principal))
    throw new FlowError("forbidden", "This session belongs to another owner.");
}

/**
 * A session's org is bound for life (the action route's check, `OrgBindingMismatchError`, 403): a principal with
 * another org, with an org on a session bound to none, or with none on a session bound to one is refused.
 * `session` may be a request record, which carries its session's org.
 */
export function assertOrgBinding(session: { id: string; orgId?: string }, principal: Principal): void {
  if (orgsDiffer(session, principal)) {
    throw new OrgBindingMismatchError(session.id, session.orgId, principal.orgId);
  }
}

/**
 * The addressed routes' form of {@link assertOrgBinding}: a principal that names an org other than the session's
 * (or names one where the session has none) is refused the same way; one that names no org is not. Those routes
 * carry no body, and the specification lets a resolver take the org from the body of an action call
 * (`metadata.body`): such a resolver yields no org there, and the session's owner must still reach their session,
 * its requests and resources.
 */
export function assertOrgNotContradicted(
  session: { id: string; orgId?: string },
  principal: Principal,
): void {
  if (principal.orgId !== undefined) assertOrgBinding(session, principal);
}

/**
 * Structural integrity at context creation: a session's user, then its org, never change; then the owner check
 * of the addressed routes (a session bound to a tenant is another tenant's `forbidden`), so an action or a webhook
 * delivery reaches no session its principal could not read.
 */
export function assertBinding(session: SessionRecord, principal: Principal): void {
  if (session.userId !== principal.userId) {
    throw new UserBindingMismatchError(session.id, session.userId, principal.userId);
  }
  assertOrgBinding(session, principal);
  assertOwner(session, principal);
}

/**
 * An action or webhook addressed to `addressed` on a stored session: the address must be the session's owner
 * (`wrong-instance-session`). Checked before any resolver runs; the owner id is an address, not an
 * authorization. An unrecorded owner is placed as everywhere else (its kind's only instance, else
 * `migration-required`); a kind with no instance here, like a recorded owner not served here, is another instance.
 */
export function assertAddress(
  registry: FlowRegistry,
  addressed: RegisteredFlow,
  session: SessionRecord,
): void {
  const ownerId = session.flowId
    ? session.flowId
    : registry.instancesOfKind(session.flowKind).length > 0
      ? registry.ownerOf(session).id
      : undefined;
  if (ownerId !== addressed.id) {
    throw new FlowError(
      "wrong-instance-session",
      `Session "${session.id}" belongs to another flow instance than "${addressed.id}".`,
      { details: { sessionId: session.id } },
    );
  }
}
