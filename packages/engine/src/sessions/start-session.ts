import type { JsonObject, SessionRecord } from "@flowrt/core";
import type { AccessControl } from "../access/access-control.js";
import type { Caller } from "../access/caller.js";
import { assertOrgBinding } from "../access/ownership.js";
import type { FlowRegistry } from "../flows/registry.js";
import type { SessionService } from "./session-service.js";

/** What a session create may say (`POST /:flowId/sessions`, `host.createSession`). */
export interface StartSessionBody {
  sessionId?: string;
  title?: string;
  metadata?: JsonObject;
  userId?: unknown;
  orgId?: unknown;
  parentSessionId?: string;
}

/**
 * Creates a session owned by the caller: with a resolver its user and org come from the principal, the body's
 * are read only without one (specification). A parent is an addressed session: its owner check runs, and the
 * child is bound to the parent's org.
 */
export async function startSession(
  deps: { registry: FlowRegistry; access: AccessControl; sessions: SessionService },
  flowId: string,
  caller: Caller,
  body: StartSessionBody,
): Promise<SessionRecord> {
  const flow = deps.registry.get(flowId);
  const { principal } = await deps.access.principalFor(
    flow,
    caller,
    // A chosen id is the session the resolver is asked about (one may authorize by it).
    body.sessionId !== undefined ? { sessionId: body.sessionId } : {},
    { userId: body.userId, orgId: body.orgId },
  );
  let parent: SessionRecord | undefined;
  if (body.parentSessionId) {
    parent = (await deps.access.authorizeSession(body.parentSessionId, { ...caller, principal })).session;
    // The child is bound to the principal's org: it must be the parent's (naming none is no exception here).
    assertOrgBinding(parent, principal);
  }
  return deps.sessions.create({
    flow,
    principal,
    ...(body.sessionId !== undefined ? { sessionId: body.sessionId } : {}),
    ...(body.title !== undefined ? { title: body.title } : {}),
    ...(body.metadata !== undefined ? { metadata: body.metadata } : {}),
    ...(parent ? { parent } : {}),
  });
}
