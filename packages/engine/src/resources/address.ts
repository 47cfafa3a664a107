import {
  type AnyResourceDefinition,
  FlowError,
  inFlowBucket,
  resolveScopeId,
  type ScopeAddress,
  type ScopeKind,
  SHARED_BUCKET,
} from "@flowrt/core";
import type { ResourceRuntimeContext } from "./context.js";

function noOrg(ctx: ResourceRuntimeContext, what: string): FlowError {
  return new FlowError(
    "resource-not-found",
    `${what} is org-scoped but session "${ctx.session.id}" is not bound to an org; create the session with an org to use it.`,
    { details: { sessionId: ctx.session.id } },
  );
}

/** Whether user/org data of this flow (or of this resource) lives in the flow's own bucket (core's one rule). */
function isolated(ctx: ResourceRuntimeContext, scope: ScopeKind, flowIsolation: boolean): boolean {
  return inFlowBucket(scope, flowIsolation, ctx.flow);
}

/**
 * Where a resource's state and content rows live. Session scope: the session (its lineage root with
 * `sharedToLineage`), shared bucket. User/org scope: the session's user/org, in the flow's own bucket
 * when the resource sets `flowIsolation` or the flow isolates that scope, else the shared bucket.
 * @throws FlowError `resource-not-found` for an org-scoped resource on a session without an org.
 */
export function resourceAddress(
  ctx: ResourceRuntimeContext,
  def: AnyResourceDefinition,
  accessor: string,
): ScopeAddress {
  const scopeId = resolveScopeId(def, {
    sessionId: ctx.session.id,
    rootSessionId: ctx.session.rootSessionId,
    userId: ctx.session.userId,
    orgId: ctx.session.orgId,
  });
  if (scopeId === undefined) throw noOrg(ctx, `Resource "${accessor}"`);
  const flowIsolation = "flowIsolation" in def && def.flowIsolation === true;
  return {
    scope: def.scope,
    scopeId,
    bucket: isolated(ctx, def.scope, flowIsolation) ? ctx.flow.id : SHARED_BUCKET,
  };
}

/**
 * Where the scope state (`ctx.session`, `ctx.user`, `ctx.org`) lives: the session id, the session's user
 * or org, in the flow's bucket when the flow sets `isolateUserState`/`isolateOrgState`. `null` for the org
 * scope of a session without an org.
 */
export function scopeStateAddress(ctx: ResourceRuntimeContext, scope: ScopeKind): ScopeAddress | null {
  const scopeId =
    scope === "session" ? ctx.session.id : scope === "user" ? ctx.session.userId : ctx.session.orgId;
  if (scopeId === undefined) return null;
  return { scope, scopeId, bucket: isolated(ctx, scope, false) ? ctx.flow.id : SHARED_BUCKET };
}

export { noOrg as orgMissingError };
