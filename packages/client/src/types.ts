/**
 * Wire shapes of the flowrt HTTP API (architecture §3 and the specification's Endpoints section), as
 * a client receives them: plain JSON, timestamps as ISO 8601 strings. They are declared here rather than
 * imported from `@flowrt/core` so that the client carries no dependency but a `fetch`.
 */

export type JsonPrimitive = string | number | boolean | null;
export type JsonValue = JsonPrimitive | JsonValue[] | { [key: string]: JsonValue };
export type JsonObject = { [key: string]: JsonValue };

export type ScopeKind = "session" | "user" | "org";

/** One flow instance as listed by `GET /`. */
export interface FlowSummary {
  flowId: string;
  kind: string;
  actions: string[];
  webhooks: string[];
  requiresAuth: boolean;
}

export interface FlowSession {
  id: string;
  /** The owning flow instance id; `null` on sessions recorded before owners were stored. */
  flowId: string | null;
  flowKind: string;
  userId: string;
  orgId?: string;
  parentSessionId?: string;
  title?: string;
  metadata: JsonObject;
  /** ISO 8601. */
  createdAt: string;
}

/** Body of `PATCH /sessions/:id`: what may change on a session. */
export interface SessionChange {
  /** At most 200 characters; `null` removes the title. */
  title?: string | null;
  /**
   * Merged into the session's metadata one level deep (atomically, so concurrent changes of different keys all
   * land); a key set to `null` is removed. The merged metadata may hold at most 16 KiB of JSON.
   */
  metadata?: { [key: string]: JsonValue | null };
}

/** What `DELETE /sessions/:id` removed: the session and every session beneath it, with what was stored under them. */
export interface SessionRemoval {
  sessions: number;
  requests: number;
  events: number;
  states: number;
  resources: number;
  contents: number;
}

/** Which page of a listing to read: `cursor` is the previous page's `nextCursor`. */
export interface PageQuery {
  /** Page size. @default 50 (the server serves at most 200) */
  limit?: number;
  /** The `nextCursor` of the previous page; absent for the first. */
  cursor?: string;
}

/** One page of `GET /sessions`. */
export interface SessionPage {
  sessions: FlowSession[];
  /** The next page's cursor; `null` on the last page. */
  nextCursor: string | null;
}

/** One page of `GET /active-requests`. */
export interface ActiveRequestPage {
  requests: ActiveRequest[];
  nextCursor: string | null;
}

/** A request as `GET /sessions/:id/requests` lists it (its error's code only; the rest is `GET /requests/:id`'s). */
export interface SessionRequest {
  requestId: string;
  status: RequestStatus;
  action: string;
  createdAt: string;
  startedAt?: string;
  completedAt?: string;
  error?: { code: string; errorId?: string };
}

/** One page of `GET /sessions/:id/requests`, newest first. */
export interface SessionRequestPage {
  requests: SessionRequest[];
  nextCursor: string | null;
}

/** Body of `POST /:flowId/sessions`. Every field is optional. */
export interface CreateSessionBody {
  /** Choose the id; a taken id answers 409 `session-exists`. */
  sessionId?: string;
  title?: string;
  metadata?: JsonObject;
  /** Read only when no resolver is configured (the development default); otherwise the principal decides. */
  userId?: string;
  /** Read only when no resolver is configured. */
  orgId?: string;
}

export type RequestStatus = "queued" | "running" | "completed" | "failed" | "aborted";

export interface FlowRequestError {
  code: string;
  message: string;
  retryable?: boolean;
  /** Set when the failure was the server's (`internal-error`, `store-error`): the id its log holds the error under. */
  errorId?: string;
}

/** A request record as `GET /requests/:id` returns it. `TOutput` is what the action returns. */
export interface FlowRequest<TOutput = JsonValue> {
  id: string;
  sessionId: string;
  flowId: string;
  action: string;
  status: RequestStatus;
  /** The user the request ran as. */
  userId: string;
  /** The org it ran in, when it had one. */
  orgId?: string;
  output?: TOutput;
  error?: FlowRequestError;
  createdAt: string;
  completedAt?: string;
  metadata: JsonObject;
}

export interface ActiveRequest {
  requestId: string;
  sessionId: string;
  flowId: string;
  userId: string;
  orgId?: string;
  action: string;
  startedAt: string;
}

/** Body of an action call. `input` goes to the action's first block; no `sessionId` creates a session. */
export interface InvokeBody<TInput = unknown> {
  input: TInput;
  sessionId?: string;
  /**
   * Read only when no resolver is configured (the development default), and then needed on every call,
   * with or without `sessionId` (naming a session does not name its user): the server answers 401
   * without one unless the flow sets `requireUser: false`. With a resolver the principal decides.
   */
  userId?: string;
  /**
   * Read only when no resolver is configured: the org of a session the call creates; on a named session,
   * another org than its own answers 403 `org-binding-mismatch` (none acts in the session's org).
   */
  orgId?: string;
}

/** 202 answer of an action call (and of a retry). */
export interface InvokeResult {
  requestId: string;
  sessionId: string;
}

export interface ResourceManifestEntry {
  ref: string;
  kind: "single" | "collection";
  scope: ScopeKind;
  /** Collections only. */
  pattern?: string;
  /** Collections only. */
  prefetchWindow?: number;
  hasClientData: boolean;
  client: {
    content: { read?: boolean; prefetch?: boolean; create?: boolean; update?: boolean; delete?: boolean };
    /** Collections only. */
    state?: { read?: boolean };
  };
}

export interface ResourceManifest {
  flowKind: string;
  resources: ResourceManifestEntry[];
}

export interface SnapshotSingleEntry<TClientData = JsonValue> {
  clientData?: TClientData;
  content?: string | null;
}

export interface SnapshotCollectionEntry<TClientData = JsonValue> {
  count: number;
  prefetched?: { topic: string; clientData?: TClientData }[];
}

/** A single resource, a collection, or an external collection (an empty anchor, never a count). */
export type SnapshotEntry = SnapshotSingleEntry | SnapshotCollectionEntry | Record<string, never>;

/**
 * The session snapshot (`GET /sessions/:id/state`). The server decides what is in it; a narrower type
 * passed to `snapshot<T>()` is the caller's claim about its own flow, not something the client checks.
 */
export interface Snapshot {
  clientData: Partial<Record<ScopeKind, JsonObject>>;
  resources: Partial<Record<ScopeKind, Record<string, SnapshotEntry>>>;
}

export interface CollectionItem<TClientData = JsonValue> {
  topic: string;
  clientData?: TClientData;
}

/** A list page of a collection with offset accounting (asked without `cursor`). */
export interface OffsetPage<TClientData = JsonValue> {
  items: CollectionItem<TClientData>[];
  pagination: {
    offset: number;
    limit: number;
    total: number;
    hasMore: boolean;
    /** `offset` plus the items the page covers, also on the last page. */
    nextOffset: number;
    /** Continues the listing by cursor from where this page ends; `null` on the last page. */
    nextCursor: string | null;
  };
}

/** A list page of a collection asked by `cursor` (a previous page's `nextCursor`). */
export interface KeysetPage<TClientData = JsonValue> {
  items: CollectionItem<TClientData>[];
  pagination: { limit: number; cursor: string; nextCursor: string | null; total: number; hasMore: boolean };
}

/** A list page of an external collection: the application's cursor instead of offsets. */
export interface CursorPage<TClientData = JsonValue> {
  items: CollectionItem<TClientData>[];
  pagination: { limit: number; cursor: string | null; nextCursor: string | null };
}

export type CollectionPage<TClientData = JsonValue> =
  | OffsetPage<TClientData>
  | KeysetPage<TClientData>
  | CursorPage<TClientData>;

export interface ListQuery {
  /** Page size. @default 50 (the server caps it at 200) */
  limit?: number;
  /** @default 0 */
  offset?: number;
  /** Matches the full storage key (e.g. `artifacts/projects/p1` for pattern `artifacts/**`). */
  topicPrefix?: string;
  /**
   * The `pagination.nextCursor` of the previous page (with the same `topicPrefix`): the page starts after it
   * (a {@link KeysetPage}). Not together with `offset`. For an external collection, the application's cursor.
   */
  cursor?: string;
}

/** Item state: the item's projected `clientData` (`null` when it has none). */
export interface ItemState<TClientData = JsonValue> {
  topic: string;
  clientData: TClientData | null;
}

export interface ContentBody {
  /** `null` when there is no content row. */
  content: string | null;
}

/** 201 answer of an item create. */
export interface CreatedItem<TClientData = JsonValue> {
  topic: string;
  clientData?: TClientData;
}

/** Answer of an item delete; `deleted: false` when the topic did not exist (still 200). */
export interface DeletedItem {
  topic: string;
  deleted: boolean;
}
