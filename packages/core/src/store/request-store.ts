import type { CasResult, Fence, JsonObject, JsonValue, SessionRecord } from "./contract.js";

/** The store contract's requests (see `contract.ts` for the rules every store keeps). */

// Requests, their event log and the active-request registry

export type RequestStatus = "queued" | "running" | "completed" | "failed" | "aborted";

export const TERMINAL_REQUEST_STATUSES: readonly RequestStatus[] = ["completed", "failed", "aborted"];

export interface RequestError {
  code: string;
  message: string;
  retryable?: boolean;
  /**
   * Set when the failure was the server's (`internal-error`, `store-error`): the message is the catalogue's text,
   * and the host logged the full error under this id.
   */
  errorId?: string;
}

export interface RequestRecord {
  id: string;
  sessionId: string;
  flowId: string;
  flowKind: string;
  /** Action name, or `webhook:<provider>:<eventType>` for webhook runs. */
  action: string;
  userId: string;
  orgId?: string;
  status: RequestStatus;
  input: JsonValue;
  output?: JsonValue;
  error?: RequestError;
  /** `metadata.webhook.deliveryId` for webhook runs; `metadata.origin` is `action`, `webhook`, `retry`, or a custom source. */
  metadata: JsonObject;
  durable: boolean;
  /** Host currently running it, and until when its claim holds (ms since epoch). */
  claim?: { hostId: string; until: number };
  /**
   * The epoch of the request's latest claim: absent (0) before any, and one more with every claim (a take-over
   * included). Writes made under a claim carry its epoch ({@link Fence}); a store refuses them once this is
   * greater. It stays when the claim is released, so a stale run stays refused after the request finished.
   */
  epoch?: number;
  /** Grows by 1 on every update; guards status transitions. Starts at 1. */
  version: number;
  createdAt: string;
  startedAt?: string;
  completedAt?: string;
}

/** Fields a request update may change; `claim: null` releases the claim. */
export interface RequestPatch {
  status?: RequestStatus;
  output?: JsonValue;
  error?: RequestError;
  metadata?: JsonObject;
  claim?: { hostId: string; until: number } | null;
  /** The epoch of a new claim: the stored epoch plus one (see {@link RequestRecord.epoch}). */
  epoch?: number;
  startedAt?: string;
  completedAt?: string;
}

/** A persisted stream event. `seq` is assigned by the store: per request, from 1, gap-free. */
export interface RequestEvent {
  seq: number;
  type: string;
  requestId: string;
  /** ISO 8601. */
  at: string;
  data: JsonObject;
}

export type NewRequestEvent = Omit<RequestEvent, "seq">;

export interface ActiveRequestEntry {
  requestId: string;
  sessionId: string;
  flowId: string;
  userId: string;
  orgId?: string;
  action: string;
  startedAt: string;
}

export interface RetentionPolicy {
  /** Remove finished requests whose `completedAt` (else `createdAt`) is older than this many ms. */
  maxAgeMs?: number;
  /** Keep at most this many finished requests (newest by `completedAt`). */
  maxCount?: number;
  /** "Now", injectable for tests. @default Date.now() */
  now?: number;
}

/**
 * How long finished requests, their event logs and the ephemeral sessions they leave empty are kept. The host
 * applies it (`createFlowHost({ retention })`) through {@link RequestStore.purgeFinished}; a store only keeps the
 * primitive.
 */
export interface RetentionOptions {
  /** Remove finished requests whose `completedAt` is older than this many milliseconds. @default 604_800_000 (7 days) */
  maxAgeMs?: number;
  /**
   * Keep at most this many finished requests (the newest by `completedAt`), across every host on the store;
   * `Infinity` keeps any number. @default 10_000
   */
  maxCount?: number;
  /** How often the purge runs. @default 600_000 (10 minutes) */
  intervalMs?: number;
}

/**
 * What {@link RequestStore.update} writes together with its patch, in the same atomic write and only when the
 * compare-and-swap holds: nothing of it when the version moved. Lets a run's claim enter the active registry and
 * log `request.started`, and its end leave the registry and log its last events, in one write each (one round trip
 * on a database).
 */
export interface RequestUpdateEffects {
  // The entry's and every event's `requestId` is the updated request's id; a store refuses a mismatch (nothing written).
  /** Enter the active registry with this entry (replacing the request's entry if it has one), or leave it (`null`). */
  active?: ActiveRequestEntry | null;
  /**
   * Events appended after the patch, in order, with the next seqs: as {@link RequestStore.appendEvent} would, and
   * notified to subscribers the same way. The update decides: a patch to a terminal status may carry events
   * before its terminal event (which comes last).
   */
  events?: readonly NewRequestEvent[];
}

/** What {@link RequestStore.create} writes with the request. */
export interface RequestCreateOptions {
  /**
   * The request's own new session (`session.id` is the record's `sessionId`), created in the same atomic write:
   * both or neither. `create` answers false, writing nothing, when the session id or the request id exists.
   */
  session?: SessionRecord;
}

export interface RequestStore {
  /** Create-only; false when the id exists (nothing written). */
  create(record: RequestRecord, options?: RequestCreateOptions): Promise<boolean>;
  get(id: string): Promise<RequestRecord | null>;
  /**
   * Applies `patch` only when the stored version equals `expectedVersion`; the version then grows by 1. A run's own
   * transitions need no {@link Fence}: every claim changes the version they are conditional on. `effects` are
   * written with the patch, atomically, only when it applies ({@link RequestUpdateEffects}).
   */
  update(
    id: string,
    expectedVersion: number,
    patch: RequestPatch,
    effects?: RequestUpdateEffects,
  ): Promise<CasResult<RequestRecord>>;
  /**
   * The requests that ran in a session, newest first (`createdAt` descending, then `id` descending); with
   * `after`, only those after that position. Costs O(log n + limit).
   */
  listBySession(
    sessionId: string,
    options: { limit: number; after?: { createdAt: string; id: string } },
  ): Promise<RequestRecord[]>;
  /**
   * Removes every request record of a user (narrowed to one org when `orgId` is given), with their event logs and
   * active entries, whatever session they name. Returns how many requests went; idempotent.
   */
  removeByUser(userId: string, options?: { orgId?: string }): Promise<number>;
  /** Requests in one of `statuses`, oldest first; `durableOnly` narrows to durable ones. */
  listByStatus(
    statuses: RequestStatus[],
    options?: { durableOnly?: boolean; limit?: number },
  ): Promise<RequestRecord[]>;
  /**
   * Appends one event, assigning the next `seq`. Concurrent appends to one request never share or skip a seq.
   * A store whose {@link FlowStores.crossProcess} is true also refuses, with `FlowError` `request-finished`,
   * any event but a terminal one (`request.completed`, `request.failed`, `request.aborted`) for a request
   * whose stored status is terminal: a run that another process aborted cannot append after its end. (Within
   * one process the engine stops such a run itself.)
   */
  appendEvent(event: NewRequestEvent, fence?: Fence): Promise<RequestEvent>;
  /** Events with `seq > afterSeq`, in order. */
  readEvents(requestId: string, afterSeq?: number, limit?: number): Promise<RequestEvent[]>;
  /**
   * Live notification of appended events (this process, or every process sharing the store for
   * stores that span processes). Listeners get events in `seq` order; a consumer that must not miss
   * any reads the log after subscribing.
   */
  subscribe(requestId: string, listener: (event: RequestEvent) => void): () => void;

  markActive(entry: ActiveRequestEntry): Promise<void>;
  clearActive(requestId: string): Promise<void>;
  listActive(filter: { userId?: string; flowIds?: string[] }): Promise<ActiveRequestEntry[]>;

  /**
   * Removes finished requests (and their events) beyond the policy. Returns how many were removed.
   * A session whose metadata has `ephemeral: true` (the JSON value; the engine stores one per webhook
   * delivery without a `sessionId`) goes when this removes the last stored request that ran in it,
   * together with its session state and session-scope resources in every bucket. A session with a
   * request still stored, without the mark, or that never had a request stays.
   */
  purgeFinished(policy: RetentionPolicy): Promise<number>;
}
