import {
  type AnyFlowDefinition,
  FlowError,
  isPrincipalResolutionError,
  normalizeResolvedPrincipal,
  type Principal,
  type PrincipalResolutionContext,
  type PrincipalResolver,
} from "@flowrt/core";
import type { HostLogger } from "./logger.js";

/** The user id stamped on requests of a `requireUser: false` flow that has no `defaultUserId`. */
export const ANONYMOUS_USER_ID = "anonymous";

export interface PrincipalOutcome {
  principal: Principal;
  /**
   * Whether a resolver (the flow's or the host's) vouched for this principal. Without one, flowrt runs
   * in the specification's development mode: owner checks are off for that flow and a body `userId` is read.
   */
  authenticated: boolean;
}

/** The resolver that governs a flow: its own, else the host's. */
export function resolverFor(flow: AnyFlowDefinition, hostResolver: PrincipalResolver | undefined) {
  return flow.authentication.resolvePrincipal ?? hostResolver;
}

/**
 * Resolves the caller for one request to `flow` (specification: Authentication, resolution order):
 * the flow's resolver, else the host's; then `defaultUserId`; then 401 unless `requireUser: false`.
 * A resolver that throws anything but a `PrincipalResolutionError` fails closed (401), and is logged
 * by error name only: a resolver's message may carry a token.
 */
export async function resolvePrincipal(options: {
  flow: AnyFlowDefinition;
  hostResolver: PrincipalResolver | undefined;
  context: PrincipalResolutionContext;
  logger: HostLogger;
  /** Read only when no resolver governs the flow (session create and action calls). */
  bodyUserId?: unknown;
}): Promise<PrincipalOutcome> {
  const { flow, context, logger } = options;
  const resolver = resolverFor(flow, options.hostResolver);
  let resolved: { userId?: string; orgId?: string; tenantId?: string } | null = null;
  if (resolver) {
    try {
      resolved = normalizeResolvedPrincipal(await resolver(context));
    } catch (error) {
      if (isPrincipalResolutionError(error)) throw error;
      logger.warn("principal resolver threw; request refused", {
        flowId: flow.id,
        source: context.source,
        error: error instanceof Error ? error.name : typeof error,
      });
      throw new FlowError("unauthorized", "The request could not be authenticated.");
    }
  } else if (typeof options.bodyUserId === "string" && options.bodyUserId !== "") {
    resolved = { userId: options.bodyUserId };
  }
  let userId = resolved?.userId;
  if (!userId && flow.authentication.defaultUserId) userId = flow.authentication.defaultUserId;
  if (!userId) {
    if (flow.authentication.requireUser !== false) {
      throw new FlowError("unauthorized", `Flow "${flow.id}" requires an authenticated user.`);
    }
    userId = ANONYMOUS_USER_ID;
  }
  const principal: Principal = { userId };
  if (resolved?.orgId) principal.orgId = resolved.orgId;
  if (resolved?.tenantId) principal.tenantId = resolved.tenantId;
  return { principal, authenticated: resolver !== undefined };
}
