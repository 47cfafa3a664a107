import {
  FlowError,
  type FlowStores,
  type Principal,
  type PrincipalResolutionContext,
  type PrincipalResolver,
  type RequestRecord,
  type SessionRecord,
} from "@flowrt/core";
import type { FlowRegistry, RegisteredFlow } from "../flows/registry.js";
import type { HostLogger } from "../logger.js";
import type { SessionService } from "../sessions/session-service.js";
import type { Caller } from "./caller.js";
import { assertOrgNotContradicted, assertOwner } from "./ownership.js";
import {
  assertedPrincipal,
  type BodyIdentity,
  type PrincipalOutcome,
  principalWithoutResolver,
  resolvePrincipal,
  resolverFor,
} from "./principal.js";

const requestNotFound = (id: string) => new FlowError("request-not-found", `No request "${id}" exists.`);

export type ResolutionEnvelope = Partial<PrincipalResolutionContext["envelope"]>;

/**
 * Who the caller is for a flow, and whether they may reach an addressed session or request. The order of the
 * checks on an addressed route lives here: load the record, find its governing flow (the record's owner, never
 * one the caller names), resolve the principal through that flow, then the owner rule, then the org rule.
 */
export class AccessControl {
  constructor(
    readonly registry: FlowRegistry,
    private readonly stores: FlowStores,
    private readonly sessions: SessionService,
    /** The host's resolver, for flows without one of their own. */
    readonly hostResolver: PrincipalResolver | undefined,
    readonly logger: HostLogger,
  ) {}

  resolutionContext(
    flow: RegisteredFlow,
    caller: Caller,
    envelope: ResolutionEnvelope,
  ): PrincipalResolutionContext {
    const context: PrincipalResolutionContext = {
      source: caller.source,
      envelope: { flowKind: flow.kind, flowId: flow.id, metadata: {}, ...envelope },
    };
    if (caller.request) context.request = caller.request;
    if (caller.rawBody) context.rawBody = caller.rawBody;
    return context;
  }

  /** Whether a resolver (the flow's own, else the host's) governs `flow`; without one it is open (development mode). */
  hasResolver(flow: RegisteredFlow): boolean {
    return resolverFor(flow.definition, this.hostResolver) !== undefined;
  }

  /**
   * Resolves the caller for `flow`; an asserted principal (trusted in-process caller) wins. Not itself `async`: it
   * hands on the resolver's promise rather than wrapping it in another one.
   */
  principalFor(
    flow: RegisteredFlow,
    caller: Caller,
    envelope: ResolutionEnvelope = {},
    bodyIdentity?: BodyIdentity,
  ): Promise<PrincipalOutcome> {
    // An asserted principal, or no resolver: answered without one, synchronously. Without a resolver nothing reads
    // a resolution context, so none is built (every webhook delivery and development-mode call would otherwise
    // pay for one).
    if (caller.principal || !this.hasResolver(flow)) {
      try {
        return Promise.resolve(
          caller.principal
            ? { principal: assertedPrincipal(flow.definition, caller.principal), authenticated: true }
            : { principal: principalWithoutResolver(flow.definition, bodyIdentity), authenticated: false },
        );
      } catch (error) {
        return Promise.reject(error);
      }
    }
    return resolvePrincipal({
      flow: flow.definition,
      hostResolver: this.hostResolver,
      context: this.resolutionContext(flow, caller, envelope),
      logger: caller.log ?? this.logger,
      ...(bodyIdentity ? { bodyIdentity } : {}),
    });
  }

  /**
   * Loads an addressed session and checks its owner, then that the caller names no other org than the session's
   * bound one, before anything else runs. The governing flow is the session's recorded owner. Flows without any
   * resolver are open (development mode).
   */
  async authorizeSession(
    sessionId: string,
    caller: Caller,
    options: { includeDeleting?: boolean } = {},
  ): Promise<{ session: SessionRecord; flow: RegisteredFlow; principal?: Principal }> {
    // A session whose removal has begun is not found, but by its owner's retried removal (`includeDeleting`): the
    // owner check reads the record as stored.
    const session = options.includeDeleting
      ? await this.sessions.getIncludingDeleting(sessionId)
      : await this.sessions.get(sessionId);
    const flow = this.sessions.governingFlow(session);
    if (caller.principal || this.hasResolver(flow)) {
      const { principal } = await this.principalFor(flow, caller, { sessionId });
      assertOwner(session, principal);
      assertOrgNotContradicted(session, principal);
      return { session, flow, principal };
    }
    return { session, flow };
  }

  /** Loads an addressed request and checks its owner (through its session's governing flow). */
  async authorizeRequest(
    requestId: string,
    caller: Caller,
  ): Promise<{ request: RequestRecord; flow: RegisteredFlow }> {
    const request = await this.stores.requests.get(requestId);
    if (!request) throw requestNotFound(requestId);
    const flow = this.registry.ownerOf(request);
    // The request's session carries the full owner (user and tenant) and the bound org; the record's userId and
    // orgId are the fallback. A session being removed takes its requests with it: they are not found already.
    const session = await this.stores.sessions.get(request.sessionId);
    if (session?.deleting) throw requestNotFound(requestId);
    if (caller.principal || this.hasResolver(flow)) {
      const { principal } = await this.principalFor(flow, caller, { sessionId: request.sessionId });
      if (session) assertOwner(session, principal);
      if (principal.userId !== request.userId) {
        throw new FlowError("forbidden", "This request belongs to another owner.");
      }
      assertOrgNotContradicted(session ?? { id: request.sessionId, orgId: request.orgId }, principal);
    }
    return { request, flow };
  }
}
