/**
 * Types shared by the definition API (this package) and the runtime (`@flowrt/engine`): the handles
 * and the context a block's `execute` receives. The engine implements them; applications use them.
 */
import type { JsonObject, JsonValue, ScopeKind } from "./store/contract.js";

/** The caller's identity, as vouched for by the application's resolver. */
export interface Principal {
  userId: string;
  orgId?: string;
  tenantId?: string;
}

/** What a resolver may return: a principal, a partial one, or `null` to fall through to `defaultUserId`. */
export type ResolvedPrincipal = { userId?: string; orgId?: string; tenantId?: string } | null | undefined;

export interface PrincipalResolutionRequest {
  method: string;
  /** Full request URL (path and query). */
  url: string;
  /** Lower-case header names, as Node gives them. */
  headers: Record<string, string | string[] | undefined>;
  cookies: Record<string, string>;
}

export interface PrincipalResolutionContext {
  /** `http`, `mcp`, `webhook`, `scheduled`, or a custom inbound adapter's source. */
  source: string;
  /** Present for HTTP-shaped transports. */
  request?: PrincipalResolutionRequest;
  envelope: {
    flowKind: string;
    flowId: string;
    action?: string;
    sessionId?: string;
    input?: unknown;
    /** `metadata.body` is the parsed request body on action calls only, `undefined` elsewhere. */
    metadata: { body?: unknown; [key: string]: unknown };
  };
  /** The exact request bytes, preserved for signature checks. */
  rawBody?: Uint8Array;
}

export type PrincipalResolver = (
  context: PrincipalResolutionContext,
) => ResolvedPrincipal | Promise<ResolvedPrincipal>;

/** A state-holding handle: a scope (session/user/org) or a single resource or collection instance. */
export interface StateHandle<TState extends JsonObject = JsonObject> {
  /** The current state, synchronously (defaults applied). Writers do not return it: read it here. */
  readonly state: TState;
  /** Shallow-merges `partial` into the state. */
  patchState(partial: Partial<TState>): Promise<void>;
  /** Replaces the state; schema defaults fill missing fields. */
  setState(state: TState | Partial<TState>): Promise<void>;
  /** Replaces the state with `fn(current)`, retried on a lost compare-and-swap race. */
  updateState(fn: (current: TState) => TState): Promise<void>;
  /** Adds each delta to its numeric field (absent or `null` counts as 0). All fields or none. */
  incState(deltas: Partial<Record<NumericKeys<TState>, number>>): Promise<void>;
  /** Appends `element` to the array field (absent or `null` counts as `[]`). */
  pushState<K extends ArrayKeys<TState>>(field: K, element: ElementOf<TState[K]>): Promise<void>;
  /**
   * Returns `state[key]` when present (a stored `null` counts as present); otherwise runs `compute`,
   * stores and returns its result. A `compute` returning `undefined` stores nothing. Concurrent misses
   * of one key within a request share one compute.
   */
  getOrPatchState<K extends keyof TState & string>(
    key: K,
    compute: () => TState[K] | undefined | Promise<TState[K] | undefined>,
  ): Promise<TState[K] | undefined>;
}

/**
 * The numeric fields of a state type. A state without a schema (`JsonObject`, an index signature) may hold a
 * number under any key, so every string is one.
 */
export type NumericKeys<T> = string extends keyof T
  ? string
  : {
      [K in keyof T & string]: NonNullable<T[K]> extends number ? K : never;
    }[keyof T & string];
/** The array fields of a state type; every string for a state without a schema (see {@link NumericKeys}). */
export type ArrayKeys<T> = string extends keyof T
  ? string
  : {
      [K in keyof T & string]: NonNullable<T[K]> extends readonly unknown[] ? K : never;
    }[keyof T & string];
/** What an array field holds; for a field typed as any JSON value, any JSON value. */
export type ElementOf<T> = [NonNullable<T>] extends [readonly (infer E)[]]
  ? E
  : Extract<NonNullable<T>, readonly unknown[]> extends readonly (infer E)[]
    ? E
    : never;

export interface ResourceIdentity {
  /** Within-scope storage key, e.g. `files/readme.md`. */
  readonly path: string;
  readonly scope: ScopeKind;
  /** `${scope}/${path}`: an opaque identifier. */
  readonly uri: string;
}

/** A single resource, or one instance of a collection. */
export interface ResourceHandle<TState extends JsonObject = JsonObject>
  extends StateHandle<TState>,
    ResourceIdentity {
  /** Content rendered through `render`, `contentTemplate` or `contentTemplateRef`; else the stored body. */
  readContent(): Promise<string | null>;
  /** The stored body, unrendered; `null` when there is no content row. */
  readContentRaw(): Promise<string | null>;
  writeContent(content: string): Promise<void>;
}

/** A collection key: a string for `*`/`**` patterns, an object of parameters for `[name]` patterns. */
export type CollectionKey = string | Record<string, string>;

export interface CollectionHandle<TState extends JsonObject = JsonObject> {
  readonly scope: ScopeKind;
  readonly pattern: string;
  create(
    key: CollectionKey,
    state?: Partial<TState>,
    options?: { replace?: boolean },
  ): Promise<ResourceHandle<TState>>;
  /** Throws `instance-not-found` when missing. */
  get(key: CollectionKey): Promise<ResourceHandle<TState>>;
  getOptional(key: CollectionKey): Promise<ResourceHandle<TState> | null>;
  getOrCreate(key: CollectionKey, init?: Partial<TState>): Promise<ResourceHandle<TState>>;
  /** Patches with `update` when it exists; else creates with `createOnly` merged under `update` (update wins). */
  upsert(
    key: CollectionKey,
    update: Partial<TState>,
    createOnly?: Partial<TState>,
  ): Promise<ResourceHandle<TState>>;
  /** Every instance under the (full-key) prefix, in key order. */
  list(prefix?: string): Promise<ResourceHandle<TState>[]>;
  count(): Promise<number>;
  /** A missing instance is a no-op. */
  delete(key: CollectionKey): Promise<void>;
}

export interface ExternalQuery {
  search?: string;
  prefix?: string;
  filter?: Record<string, JsonValue>;
  limit?: number;
  cursor?: string;
}

/** A read-only reference to one record of an external collection. */
export interface ExternalRecordRef<TState extends JsonObject = JsonObject> extends ResourceIdentity {
  readonly key: string;
  readonly state: TState;
  readContent(): Promise<string | null>;
}

export interface ExternalCollectionHandle<TState extends JsonObject = JsonObject> {
  readonly scope: ScopeKind;
  readonly pattern: string;
  get(key: string): Promise<ExternalRecordRef<TState>>;
  getOptional(key: string): Promise<ExternalRecordRef<TState> | null>;
  /** A bare string means `{ search }`. */
  list(query?: ExternalQuery | string): Promise<{ items: ExternalRecordRef<TState>[]; nextCursor?: string }>;
}

/**
 * `ctx.log`: call it (`ctx.log("indexed", { n })`, at the info level, as a collection hook's `ctx.log(message)`)
 * or pick the level (`ctx.log.warn(…)`).
 */
export interface BlockLogger {
  (message: string, data?: Record<string, unknown>): void;
  debug(message: string, data?: Record<string, unknown>): void;
  info(message: string, data?: Record<string, unknown>): void;
  warn(message: string, data?: Record<string, unknown>): void;
  error(message: string, data?: Record<string, unknown>): void;
}

/**
 * `ctx.session`: the session's state, and its record's mutable fields (what `PATCH /sessions/:id` changes). The
 * setters follow the same rules as that route (a title of at most 200 characters, metadata of at most 16 KiB of JSON
 * once merged) and, like every write of a run, are refused once the run was aborted or has ended.
 */
export interface SessionHandle<TSession extends JsonObject = JsonObject> extends StateHandle<TSession> {
  /** Sets the session's title; `null` removes it. */
  setTitle(title: string | null): Promise<void>;
  /**
   * Merges `patch` into the session's metadata one level deep, in one atomic step (two concurrent calls setting
   * different keys both land); a key set to `null` is removed.
   */
  setMetadata(patch: { [key: string]: JsonValue | null }): Promise<void>;
}

/** Scope handles available on every block context. */
export interface ScopeHandles<
  TSession extends JsonObject = JsonObject,
  TUser extends JsonObject = JsonObject,
  TOrg extends JsonObject = JsonObject,
> {
  session: SessionHandle<TSession>;
  user: StateHandle<TUser>;
  org: StateHandle<TOrg>;
}

/**
 * The context a block's `execute` receives. `TResources` maps accessor names to handle types; blocks
 * that declare `resources` get them typed, others get a loose map.
 */
export interface BlockContext<
  TResources = Record<string, any>,
  TSession extends JsonObject = JsonObject,
  TUser extends JsonObject = JsonObject,
  TOrg extends JsonObject = JsonObject,
> extends ScopeHandles<TSession, TUser, TOrg> {
  resources: TResources;
  principal: Principal;
  sessionId: string;
  requestId: string;
  /**
   * A key for side effects outside the stores (a payment, an email, an external API call): the same for every run
   * of this request, a run taken over by another host after this one was paused or died included, and different for
   * every other request. Pass it as the external API's idempotency key (Stripe's `Idempotency-Key` header, say), with a
   * suffix per effect when a run makes several, so an effect a stale run already made is not made twice.
   */
  idempotencyKey: string;
  flowId: string;
  flowKind: string;
  /** Aborts when the request is aborted (`POST /requests/:id/abort`); a closing host waits for the run instead. */
  signal: AbortSignal;
  log: BlockLogger;
  /**
   * Emits a custom event onto the request's stream (persisted like every other event). The payload is `data`,
   * or the event's other fields: `{ type: "progress", data: { pct: 50 } }` and `{ type: "progress", pct: 50 }`
   * both stream `{ …, "type": "progress", "pct": 50 }`.
   */
  emit(event: { type: string; data?: JsonObject } | ({ type: string } & JsonObject)): Promise<void>;
}
