import {
  type AnyFlowDefinition,
  FlowError,
  type FlowPrincipalResolver,
  isPrincipalResolutionError,
  normalizeResolvedPrincipal,
  type Principal,
  type PrincipalResolutionContext,
  type PrincipalResolver,
} from "@flowrt/core";
import type { HostLogger } from "../logger.js";

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
  /** The body's `userId` and `orgId`, read only when no resolver governs the flow (session create and action calls). */
  bodyIdentity?: BodyIdentity;
}): Promise<PrincipalOutcome> {
  const { flow, context, logger } = options;
  const resolver = resolverFor(flow, options.hostResolver);
  if (!resolver)
    return { principal: principalWithoutResolver(flow, options.bodyIdentity), authenticated: false };
  return {
    principal: principalOf(flow, await callResolver(resolver, context, logger, flow.id)),
    authenticated: true,
  };
}

/** What a session-create or action body may say about its caller: read only when no resolver governs the flow. */
export interface BodyIdentity {
  userId?: unknown;
  orgId?: unknown;
}

const named = (value: unknown): value is string => typeof value === "string" && value !== "";

/**
 * The principal of a call to a flow no resolver governs (the specification's development mode): a body
 * `userId` when one is given, else `defaultUserId`, else `anonymous` — or 401 when the flow requires a user;
 * and the body's `orgId` when one is given (architecture: session create body). With a resolver neither is
 * read. What {@link resolvePrincipal} answers without a resolver, without a resolution context to build.
 */
export function principalWithoutResolver(flow: AnyFlowDefinition, body?: BodyIdentity): Principal {
  const userId = body?.userId;
  const orgId = body?.orgId;
  if (!named(userId) && !named(orgId)) return principalOf(flow, null);
  return principalOf(flow, {
    ...(named(userId) ? { userId } : {}),
    ...(named(orgId) ? { orgId } : {}),
  });
}

/**
 * A principal asserted by a trusted in-process caller (a custom inbound route's `dispatch`), held to the same
 * rules as a resolver's answer: only non-empty string ids count, a missing user falls back to `defaultUserId`,
 * and a flow that requires a user refuses (401) without one.
 */
export function assertedPrincipal(flow: AnyFlowDefinition, principal: unknown): Principal {
  return principalOf(flow, normalizeResolvedPrincipal(principal));
}

/** The principal a resolution gives: its user, else `defaultUserId`, else anonymous or 401; its org and tenant. */
function principalOf(
  flow: AnyFlowDefinition,
  resolved: { userId?: string; orgId?: string; tenantId?: string } | null,
): Principal {
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
  return principal;
}

/** Runs a resolver, failing closed: anything but a `PrincipalResolutionError` is a 401, logged by name only. */
async function callResolver(
  resolver: PrincipalResolver | FlowPrincipalResolver,
  context: PrincipalResolutionContext,
  logger: HostLogger,
  flowId: string | undefined,
  outcome = "request refused",
) {
  try {
    return normalizeResolvedPrincipal(await resolver(context));
  } catch (error) {
    if (isPrincipalResolutionError(error)) throw error;
    // By name only: a resolver's message may quote the credential it could not read.
    logger.warn(
      {
        ...(flowId !== undefined ? { flowId } : {}),
        source: context.source,
        error: error instanceof Error ? error.name : typeof error,
      },
      `principal resolver threw; ${outcome}`,
    );
    throw new FlowError("unauthorized", "The request could not be authenticated.");
  }
}

/**
 * The caller as a resolver sees them for a listing (the host-level one, or a flow's own for that flow's
 * rows): no `defaultUserId` applies. Listings are scoped to the caller and never rejected (specification: What a
 * configured resolver protects), so a caller the resolver does not identify — no user, a
 * `PrincipalResolutionError` of any status, or any other throw (logged by name, as everywhere) — is
 * `null`: nobody, whose listing is empty.
 */
export async function resolveListingCaller(
  resolver: PrincipalResolver | FlowPrincipalResolver,
  context: PrincipalResolutionContext,
  logger: HostLogger,
): Promise<Principal | null> {
  let resolved: Awaited<ReturnType<typeof callResolver>>;
  try {
    resolved = await callResolver(resolver, context, logger, undefined, "listing answered empty");
  } catch {
    return null;
  }
  if (!resolved?.userId) return null;
  const principal: Principal = { userId: resolved.userId };
  if (resolved.orgId) principal.orgId = resolved.orgId;
  if (resolved.tenantId) principal.tenantId = resolved.tenantId;
  return principal;
}

/** The identity a stored request runs under: its user and org, and its session's tenant. */
export function principalOfRecord(
  record: { userId: string; orgId?: string },
  session?: { tenantId?: string },
): Principal {
  const principal: Principal = { userId: record.userId };
  if (record.orgId) principal.orgId = record.orgId;
  if (session?.tenantId) principal.tenantId = session.tenantId;
  return principal;
}
