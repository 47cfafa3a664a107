import type { BlockLogger, FlowStores, JsonObject, Principal, ScopeKind, SessionRecord } from "@flowrt/core";
import type { z } from "zod";

/** A scope's client projection, as the flow definition normalizes it. */
export interface ScopeClientView {
  /** State fields published verbatim. */
  readonly expose: readonly string[];
  /** Computed values, published under their key. */
  readonly derived: Readonly<Record<string, (state: any) => unknown>>;
}

/** What the resource engine reads of a flow's `session`, `user` or `org` option. */
export interface ScopeConfigView {
  readonly stateSchema?: z.ZodType | undefined;
  readonly client?: ScopeClientView | undefined;
}

/** What the resource engine reads of a flow definition (a `FlowDefinition` fits as is). */
export interface ResourceFlowInfo {
  /** The flow instance id: the isolation bucket of isolated user/org data. */
  readonly id: string;
  readonly kind: string;
  readonly isolateUserState: boolean;
  readonly isolateOrgState: boolean;
  readonly session?: ScopeConfigView | undefined;
  readonly user?: ScopeConfigView | undefined;
  readonly org?: ScopeConfigView | undefined;
}

export type ResourceEventType = "resource_change" | "state_change";

/** What changed, as `resource_change` announces it. */
export type ResourceChangeKind = "created" | "updated" | "deleted" | "content";

/**
 * Handed to {@link ResourceRuntimeContext.runReaction} after every committed resource change (every
 * change of every resource, `live` or not), so that the block layer can run `reactTo` bindings inside the
 * originating turn. `change: "content"` is the `reactTo.contentUpdated` trigger.
 */
export interface ResourceChangeNotice {
  /** The accessor name the resource is declared under. */
  ref: string;
  kind: "single" | "collection";
  scope: ScopeKind;
  change: ResourceChangeKind;
  /** The instance's storage path (the single resource's key, or the collection item's full key). */
  path: string;
  uri: string;
  /** The new state (state writes and creates), absent for deletes and content writes. */
  state?: JsonObject;
  /** The state before the write, for updates. */
  previousState?: JsonObject;
}

/**
 * Everything the resource engine needs from one request (or, with `requestId: null`, from one client
 * HTTP call outside a request). The engine never reaches for anything else.
 */
export interface ResourceRuntimeContext {
  stores: FlowStores;
  flow: ResourceFlowInfo;
  /** The session the request runs in; its `userId`/`orgId` pick the user and org scope. */
  session: SessionRecord;
  principal: Principal;
  /** `null` outside a request (e.g. client HTTP routes). */
  requestId: string | null;
  signal: AbortSignal;
  /**
   * Whether the request run is aborted (free to read, unlike `signal`): every write through this context
   * (state, content, collection create and delete) is then refused with `request-aborted` before anything
   * is stored. Absent outside a request.
   */
  readonly aborted?: boolean;
  /** Whether the request run has ended (a context kept past it): its writes are refused with `request-finished`. */
  readonly ended?: boolean;
  log: BlockLogger;
  /** Appends an event to the request's stream; a no-op outside a request. */
  emit(type: ResourceEventType, data: JsonObject): Promise<void>;
  /** Runs the `reactTo` bindings matching a change, inside the turn. Awaited before the write returns. */
  runReaction?(notice: ResourceChangeNotice): Promise<void>;
}
