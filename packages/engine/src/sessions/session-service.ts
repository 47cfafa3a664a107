import {
  FlowError,
  type FlowStores,
  type JsonObject,
  type Principal,
  type SessionRecord,
} from "@flowrt/core";
import type { FlowRegistry, RegisteredFlow } from "../flows/registry.js";
import { isoNow } from "../requests/clock.js";
import { newId } from "../requests/new-id.js";

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

/** Session records: creation bound to a principal for life (and lineage), reads, and the flow that governs each. */
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
}
