import {
  FlowError,
  type FlowStores,
  type JsonObject,
  type Principal,
  type SessionPatch,
  type SessionRecord,
} from "@flowrt/core";
import type { FlowRegistry, RegisteredFlow } from "../flows/registry.js";
import { isoNow } from "../requests/clock.js";
import { newId } from "../requests/new-id.js";
import { checkMetadataPatch, checkTitle, type SessionChange, storePatch } from "./session-patch.js";

const SESSION_ID = /^[A-Za-z0-9_.:-]{1,200}$/;

const notFound = (id: string) => new FlowError("session-not-found", `No session "${id}" exists.`);

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
    const record = this.newRecord(input);
    if (!(await this.stores.sessions.create(record))) {
      throw new FlowError("session-exists", `A session with id "${record.id}" already exists.`, {
        details: { sessionId: record.id },
      });
    }
    return record;
  }

  /**
   * The record {@link create} stores, not stored: for a session created with its first request in one write (a
   * webhook delivery's own session, see `NewRequest.newSession`).
   */
  newRecord(input: CreateSessionInput): SessionRecord {
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
    return record;
  }

  /** A session as every route reads it: one whose removal has begun (`deleting`) is not found. */
  async get(id: string): Promise<SessionRecord> {
    // One store read and no further promise: every addressed route reads its session here.
    const session = typeof id === "string" && SESSION_ID.test(id) ? await this.stores.sessions.get(id) : null;
    if (!session || session.deleting) throw notFound(id);
    return session;
  }

  /** A session, one whose removal has begun included: only a retried removal reads it (see `session-remover.ts`). */
  async getIncludingDeleting(id: string): Promise<SessionRecord> {
    const session = typeof id === "string" && SESSION_ID.test(id) ? await this.stores.sessions.get(id) : null;
    if (!session) throw notFound(id);
    return session;
  }

  /**
   * Changes a session's title and metadata (the rules are `session-patch.ts`'s: a bad title or metadata is a 400
   * naming the field, with nothing written). The store merges the metadata in one atomic step; its size is checked
   * against the record as read (`session`, or read here by id when the change touches metadata). The record as
   * stored afterwards; `session-not-found` when it is gone or its removal has begun.
   */
  async change(session: SessionRecord | string, change: SessionChange): Promise<SessionRecord> {
    const checked: SessionChange = {};
    if (change.title !== undefined) checked.title = checkTitle(change.title);
    if (change.metadata !== undefined) checked.metadata = checkMetadataPatch(change.metadata);
    const id = typeof session === "string" ? session : session.id;
    const touchesMetadata = checked.metadata !== undefined && Object.keys(checked.metadata).length > 0;
    const current =
      typeof session !== "string" ? session : touchesMetadata ? await this.get(session) : undefined;
    const patch: SessionPatch = current
      ? storePatch(current, checked)
      : checked.title !== undefined
        ? { title: checked.title }
        : {};
    if (patch.title === undefined && patch.metadataPatch === undefined) return current ?? this.get(id);
    const updated = await this.stores.sessions.update(id, patch);
    // Gone, or its removal began meanwhile: the session is not found, as any route would answer now.
    if (!updated || updated.deleting) throw notFound(id);
    return updated;
  }

  /** The flow that governs reads and writes of a session: its recorded owner (never one the caller names). */
  governingFlow(session: SessionRecord): RegisteredFlow {
    return this.registry.ownerOf(session);
  }
}
