import {
  FlowError,
  type FlowStores,
  type JsonObject,
  OrgBindingMismatchError,
  type Principal,
  type SessionRecord,
  UserBindingMismatchError,
} from "@flowrt/core";
import { isoNow } from "../requests/clock.js";
import { newId } from "../requests/new-id.js";
import type { FlowRegistry, RegisteredFlow } from "../flows/registry.js";

const SESSION_ID = /^[A-Za-z0-9_.:-]{1,200}$/;

export function assertSessionId(id: unknown): asserts id is string {
  if (typeof id !== "string" || !SESSION_ID.test(id)) {
    throw new FlowError(
      "invalid-request",
      "A session id is 1–200 characters of letters, digits, '_', '.', ':' or '-'.",
      { details: { field: "sessionId" } },
    );
  }
}

export interface CreateSessionInput {
  flow: RegisteredFlow;
  principal: Principal;
  sessionId?: string;
  title?: string;
  metadata?: JsonObject;
  /** The conversation this session is dispatched beneath. */
  parent?: SessionRecord;
}

/** Sessions: creation bound to a principal for life, instance ownership, and lineage. */
export class SessionService {
  constructor(
    private readonly stores: FlowStores,
    private readonly registry: FlowRegistry,
  ) {}

  async create(input: CreateSessionInput): Promise<SessionRecord> {
    // A generated id is a UUID, valid by construction; only a given one is checked.
    const id = input.sessionId ?? newId();
    if (input.sessionId !== undefined) assertSessionId(id);
    const { principal, parent } = input;
    const record: SessionRecord = {
      id,
      flowId: input.flow.id,
      flowKind: input.flow.kind,
      userId: principal.userId,
      rootSessionId: parent ? parent.rootSessionId : id,
      metadata: input.metadata ?? {},
      createdAt: isoNow(),
    };
    if (principal.orgId) record.orgId = principal.orgId;
    if (principal.tenantId) record.tenantId = principal.tenantId;
    if (parent) record.parentSessionId = parent.id;
    if (input.title !== undefined) record.title = input.title;
    if (!(await this.stores.sessions.create(record))) {
      throw new FlowError("session-exists", `A session with id "${id}" already exists.`, {
        details: { sessionId: id },
      });
    }
    return record;
  }

  async get(id: string): Promise<SessionRecord> {
    const session = typeof id === "string" && SESSION_ID.test(id) ? await this.stores.sessions.get(id) : null;
    if (!session) throw new FlowError("session-not-found", `No session "${id}" exists.`);
    return session;
  }

  /** The flow that governs reads and writes of a session: its recorded owner (never one the caller names). */
  governingFlow(session: SessionRecord): RegisteredFlow {
    return this.registry.ownerOf(session);
  }

  /**
   * An action or webhook addressed to `addressed` on a stored session: the address must be the session's
   * owner. Checked before any resolver runs; the owner id is an address, not an authorization.
   */
  checkAddress(addressed: RegisteredFlow, session: SessionRecord): void {
    // An unrecorded owner is placed as everywhere else (its kind's only instance, else migration-required);
    // a kind with no instance here, like a recorded owner not served here, is another instance.
    const ownerId = session.flowId
      ? session.flowId
      : this.registry.instancesOfKind(session.flowKind).length > 0
        ? this.registry.ownerOf(session).id
        : undefined;
    if (ownerId !== addressed.id) {
      throw new FlowError(
        "wrong-instance-session",
        `Session "${session.id}" belongs to another flow instance than "${addressed.id}".`,
        { details: { sessionId: session.id } },
      );
    }
  }

  /** Whether `principal` owns `session`: its user, and its tenant when the session has one. */
  isOwner(session: SessionRecord, principal: Principal): boolean {
    const tenantDiffers = session.tenantId !== undefined && session.tenantId !== principal.tenantId;
    return session.userId === principal.userId && !tenantDiffers;
  }

  /**
   * What a listing may show the caller: a session its addressed routes would serve them (the owner, and not
   * an org the caller contradicts).
   */
  canRead(session: SessionRecord, principal: Principal): boolean {
    return (
      this.isOwner(session, principal) && !(principal.orgId !== undefined && orgsDiffer(session, principal))
    );
  }

  /** Owner check for addressed routes: 403 for another owner (user or tenant). */
  assertOwner(session: SessionRecord, principal: Principal): void {
    if (!this.isOwner(session, principal)) {
      throw new FlowError("forbidden", "This session belongs to another owner.");
    }
  }

  /**
   * Structural integrity at context creation: a session's user, then its org, never change; then the owner
   * check of the addressed routes (a session bound to a tenant is another tenant's `forbidden`), so an action
   * or a webhook delivery reaches no session its principal could not read.
   */
  assertBinding(session: SessionRecord, principal: Principal): void {
    if (session.userId !== principal.userId) {
      throw new UserBindingMismatchError(session.id, session.userId, principal.userId);
    }
    this.assertOrgBinding(session, principal);
    this.assertOwner(session, principal);
  }

  /**
   * The addressed routes' form of {@link assertOrgBinding}: a principal that names an org other than the
   * session's (or names one where the session has none) is refused the same way; one that names no org
   * is not. Those routes carry no body, and the specification lets a resolver take the org from the body
   * of an action call (`metadata.body`): such a resolver yields no org here, and the session's owner must
   * still reach their session, its requests and resources.
   */
  assertOrgNotContradicted(session: { id: string; orgId?: string }, principal: Principal): void {
    if (principal.orgId !== undefined) this.assertOrgBinding(session, principal);
  }

  /**
   * A session's org is bound for life (the action route's check, `OrgBindingMismatchError`, 403): a
   * principal with another org, with an org on a session bound to none, or with none on a session bound
   * to one is refused. `session` may be a request record, which carries its session's org.
   */
  assertOrgBinding(session: { id: string; orgId?: string }, principal: Principal): void {
    if (orgsDiffer(session, principal)) {
      throw new OrgBindingMismatchError(session.id, session.orgId, principal.orgId);
    }
  }
}

/** Whether a session (or request) and a principal name different orgs, none being one of the values. */
export function orgsDiffer(session: { orgId?: string }, principal: { orgId?: string }): boolean {
  return (session.orgId ?? undefined) !== (principal.orgId ?? undefined);
}
