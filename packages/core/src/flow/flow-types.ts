/**
 * The shapes of flow definitions: what `defineFlow` accepts (`*Options`/`*Config`) and the normalized,
 * frozen definition it returns, which the runtime (`@flowrt/engine`) reads.
 */

import type { AnyBlock, AnyBlockContext, BlockContextFor, ResourceMap } from "../blocks/block-definition.js";
import type { AnySchema, MaybePromise, SchemaState } from "../blocks/schema.js";
import type { DEFINITION_KIND } from "../brand.js";
import type { PrincipalResolutionContext } from "../runtime-types.js";
import type { JsonObject } from "../store/contract.js";
import type { WithInstanceId } from "./flow-client-view.js";

/**
 * What a flow's resolver may return. Fields are `unknown` so that a resolver can hand back a header value
 * (`string | string[] | undefined`) as is: the runtime keeps only non-empty strings (see
 * `normalizeResolvedPrincipal`) and treats anything else as absent. `null` falls through to `defaultUserId`.
 */
export type FlowResolvedPrincipal =
  | { userId?: unknown; orgId?: unknown; tenantId?: unknown }
  | null
  | undefined;

export type FlowPrincipalResolver = (
  context: PrincipalResolutionContext,
) => MaybePromise<FlowResolvedPrincipal>;

/** A flow's `authentication` option. */
export interface FlowAuthentication {
  /** Resolves the caller; wins over the host-level resolver. @default the host's resolver, if any */
  resolvePrincipal?: FlowPrincipalResolver;
  /**
   * Rejects (401) requests without a resolvable `userId`. `false` opts the flow out of user identity: it
   * then may not declare user-scope state, user-scope resources or a scope `client` block. @default true
   */
  requireUser?: boolean;
  /** Used when the resolver yields no `userId` (and stamped on requests of `requireUser: false` flows). @default none */
  defaultUserId?: string;
  /** Reserved by the specification; no runtime effect. @default false */
  requireOrg?: boolean;
}

/** The normalized `authentication` of a flow definition. */
export interface FlowAuthenticationConfig {
  readonly resolvePrincipal: FlowPrincipalResolver | undefined;
  readonly requireUser: boolean;
  readonly defaultUserId: string | undefined;
  readonly requireOrg: boolean;
}

/** The client projection of a scope's state: `clientData.<scope>` in the snapshot. */
export interface ScopeClientConfig<TState = JsonObject> {
  /** State fields published verbatim (they must exist in the schema). @default none */
  expose?: readonly (keyof TState & string)[];
  /** Computed values, published under their key. @default none */
  derived?: Record<string, (state: TState) => unknown>;
}

/** A flow's `session`, `user` or `org` option. */
export interface ScopeConfig<TSchema extends AnySchema | undefined = AnySchema | undefined> {
  /** The scope state's schema; writes that do not satisfy it are refused. @default none (any JSON object) */
  stateSchema?: TSchema;
  /** Publishes part of the state to clients. @default none: the scope's state is private */
  client?: ScopeClientConfig<SchemaState<TSchema>>;
}

/** The normalized scope config of a flow definition. */
export interface ScopeDefinition {
  readonly stateSchema: AnySchema | undefined;
  readonly client:
    | {
        readonly expose: readonly string[];
        readonly derived: Readonly<Record<string, (state: any) => unknown>>;
      }
    | undefined;
}

/** Policy shared by actions and webhook bindings. */
export interface ExecutionPolicy<TCtx = AnyBlockContext> {
  /** Persist progress so the host resumes the run after a restart. @default false */
  durable?: boolean;
  /** The most tokens the run may use across its generators. @default unlimited */
  tokenBudget?: number;
  /** Runs after the block completes, with its output. */
  onCompleted?: (output: unknown, ctx: TCtx) => MaybePromise<void>;
  /** Runs after the block fails, with the error. */
  onErrored?: (error: unknown, ctx: TCtx) => MaybePromise<void>;
}

/** An entry of a flow's `actions`; a bare block is shorthand for `{ block }`. */
export interface ActionConfig<TCtx = AnyBlockContext> extends ExecutionPolicy<TCtx> {
  block: AnyBlock;
  /** Shown in listings and when the action is offered as a tool. @default the block's description */
  description?: string;
}

interface NormalizedPolicy {
  readonly durable: boolean;
  readonly tokenBudget: number | undefined;
  readonly onCompleted: ((output: unknown, ctx: AnyBlockContext) => MaybePromise<void>) | undefined;
  readonly onErrored: ((error: unknown, ctx: AnyBlockContext) => MaybePromise<void>) | undefined;
}

/** A normalized action of a flow definition. */
export interface ActionDefinition extends NormalizedPolicy {
  readonly name: string;
  readonly block: AnyBlock;
  readonly description: string | undefined;
}

/** A verified webhook delivery, as a binding's functions see it. */
export interface WebhookInboundEvent {
  /** The `:provider` path segment. */
  provider: string;
  eventType: string | null;
  /** The parsed body. */
  payload: unknown;
  /** Lower-case header names. */
  headers: Record<string, string | string[] | undefined>;
  /** The exact request bytes. */
  rawBody: Uint8Array;
  deliveryId?: string;
}

/** The value under `webhooks.<provider>.on.<eventType>`. */
export interface WebhookBindingConfig<TCtx = AnyBlockContext> extends ExecutionPolicy<TCtx> {
  /** Runs for each matching delivery (after the 202). */
  block: AnyBlock;
  /**
   * Maps the event to the block's input; may be async. The result is validated by `inputSchema`, else by the
   * block's own. @default the event's payload
   */
  input?: (event: WebhookInboundEvent) => unknown;
  /** Validates what `input` returns. @default the block's inputSchema */
  inputSchema?: AnySchema;
  /**
   * Picks the session (found or created); `null` or `undefined` for a fresh ephemeral session, as without it.
   * @default a fresh ephemeral session per delivery
   */
  sessionId?: (event: WebhookInboundEvent) => MaybePromise<string | null | undefined>;
  /** Synchronous filter; a falsy result ignores the delivery (still 202). @default every delivery */
  when?: (event: WebhookInboundEvent) => unknown;
}

/** A normalized webhook binding. */
export interface WebhookBinding extends NormalizedPolicy {
  readonly provider: string;
  readonly eventType: string;
  readonly block: AnyBlock;
  readonly input: ((event: WebhookInboundEvent) => unknown) | undefined;
  readonly inputSchema: AnySchema | undefined;
  readonly sessionId: ((event: WebhookInboundEvent) => MaybePromise<string>) | undefined;
  readonly when: ((event: WebhookInboundEvent) => unknown) | undefined;
}

/** What a schedule's `input` function is given: the schedule's name and the tick it runs for. */
export interface ScheduledTick {
  /** The schedule's name (its key under `schedules`). */
  schedule: string;
  /** The tick's time, as the cron expression names it (ISO 8601, UTC). */
  scheduledAt: string;
}

/** Who a schedule's runs act as: no resolver is asked, the host asserts this principal. */
export interface SchedulePrincipal {
  userId: string;
  orgId?: string;
  tenantId?: string;
}

/**
 * The value under `schedules.<name>`: runs `block` on every tick of `cron`.
 * @example
 * schedules: {
 *   nightly: { cron: "0 3 * * *", timezone: "Europe/Berlin", block: digest, principal: { userId: "ops" } },
 * }
 */
export interface ScheduleConfig<TCtx = AnyBlockContext> extends ExecutionPolicy<TCtx> {
  /**
   * A cron expression (croner's syntax): five fields, or six with seconds first (`* * * * * *` every second).
   * Checked when the host starts.
   */
  cron: string;
  /** An IANA time zone the expression is read in (`Europe/Berlin`); checked when the host starts. @default "UTC" */
  timezone?: string;
  /** Runs on each tick. */
  block: AnyBlock;
  /**
   * The block's input: a value, or a function of the tick (may be async); validated by the block's `inputSchema`.
   * @default undefined
   */
  input?: unknown;
  /** The principal the runs act as (asserted: no resolver runs). Required. */
  principal: SchedulePrincipal;
  /** Runs in this session (found or created for `principal`). @default a fresh ephemeral session per tick */
  sessionId?: string;
  /**
   * After downtime: `latest` runs the most recent missed tick once when a host starts; `none` runs only future
   * ticks. @default "latest"
   */
  catchUp?: "none" | "latest";
}

/** A normalized schedule. */
export interface ScheduleDefinition extends NormalizedPolicy {
  readonly name: string;
  readonly cron: string;
  readonly timezone: string;
  readonly block: AnyBlock;
  /** `undefined`, a value, or a function of the tick. */
  readonly input: unknown;
  readonly principal: Readonly<SchedulePrincipal>;
  readonly sessionId: string | undefined;
  readonly catchUp: "none" | "latest";
}

/** `{ on: { <eventType>: binding } }`, normalized. */
export interface WebhookProviderBindings {
  readonly on: Readonly<Record<string, WebhookBinding>>;
}

/** The `ctx` of a flow's own callbacks (`onCompleted`, `onErrored`): typed by the flow's schemas and resources. */
export type FlowContext<
  TResources extends ResourceMap = {},
  TSession = undefined,
  TUser = undefined,
  TOrg = undefined,
> = BlockContextFor<TResources, TSession, TUser, TOrg>;

/** A flow's `actions` option: action name (URL-safe) → block or action config. */
export type FlowActionsOption<
  TResources extends ResourceMap = ResourceMap,
  TSession = undefined,
  TUser = undefined,
  TOrg = undefined,
> = Record<string, AnyBlock | ActionConfig<FlowContext<TResources, TSession, TUser, TOrg>>>;

export interface FlowOptions<
  TSession extends AnySchema | undefined,
  TUser extends AnySchema | undefined,
  TOrg extends AnySchema | undefined,
  TResources extends ResourceMap,
> {
  /** The flow's name; URL-safe, and the id of the plain definition. */
  kind: string;
  description?: string;
  /** Action name (URL-safe) → block or action config. @default {} */
  actions?: FlowActionsOption<TResources, TSession, TUser, TOrg>;
  /** Flow-level resources: loaded at the start of every request; they take priority over block-level ones. @default {} */
  resources?: TResources;
  session?: ScopeConfig<TSession>;
  user?: ScopeConfig<TUser>;
  org?: ScopeConfig<TOrg>;
  /** @default { requireUser: true } with the host's resolver */
  authentication?: FlowAuthentication;
  /** Provider name → `{ on: { <eventType>: binding } }`. @default {} */
  webhooks?: Record<
    string,
    { on: Record<string, WebhookBindingConfig<FlowContext<TResources, TSession, TUser, TOrg>>> }
  >;
  /**
   * Schedule name (URL-safe) → a cron schedule that runs a block as a fixed principal. Each tick runs once across
   * every host sharing the store. @default {}
   */
  schedules?: Record<string, ScheduleConfig<FlowContext<TResources, TSession, TUser, TOrg>>>;
  /** Store this flow's user state apart from other flows' (and skip the cross-flow schema check). @default false */
  isolateUserState?: boolean;
  /** Store this flow's org state apart from other flows' (and skip the cross-flow schema check). @default false */
  isolateOrgState?: boolean;
  /**
   * Blocks that run inside the originating turn after a resource changes (specification: in-flow
   * reactions). Each reaction's block receives the change notice as its input. @default []
   */
  reactions?: ReactionConfig[];
}

/**
 * A flow definition (or a named instance of one). `TClient` is what clients see of it (a
 * {@link FlowClientView} worked out by `defineFlow`), `unknown` when not known.
 */
export interface FlowDefinition<
  TSession extends JsonObject = JsonObject,
  TUser extends JsonObject = JsonObject,
  TOrg extends JsonObject = JsonObject,
  TClient = unknown,
> {
  readonly [DEFINITION_KIND]: "flow";
  readonly kind: string;
  /** The instance id (`flowId` in URLs): `kind` for the plain definition. */
  readonly id: string;
  /** The `kind` this is an instance of; `undefined` on the plain definition. */
  readonly instanceOf: string | undefined;
  readonly description: string | undefined;
  readonly actions: Readonly<Record<string, ActionDefinition>>;
  readonly resources: ResourceMap;
  readonly session: ScopeDefinition;
  readonly user: ScopeDefinition;
  readonly org: ScopeDefinition;
  readonly authentication: FlowAuthenticationConfig;
  readonly webhooks: Readonly<Record<string, WebhookProviderBindings>>;
  readonly schedules: Readonly<Record<string, ScheduleDefinition>>;
  readonly isolateUserState: boolean;
  readonly isolateOrgState: boolean;
  readonly reactions: readonly ReactionDefinition[];
  /**
   * A named copy of this flow: same definition, its own id (and its own sessions and isolated state).
   * Ids are URL-safe and may not be a reserved path word.
   */
  instance<TId extends string>(options: {
    id: TId;
  }): FlowDefinition<TSession, TUser, TOrg, WithInstanceId<TClient, TId>>;
  /** Type-level only. */
  readonly "~types"?: { readonly session: TSession; readonly user: TUser; readonly org: TOrg };
  /**
   * Type-level only, never present at runtime: what clients see of the flow (its id, actions, client-visible
   * resources and scope client data). `@flowrt/client`'s `createFlowClient<typeof flows>()` reads it.
   */
  readonly "~client"?: TClient;
}

export type AnyFlowDefinition = FlowDefinition<any, any, any, any>;

/** What a resource change can be, as `resource_change` and reactions name it. */
export type ResourceChange = "created" | "updated" | "deleted" | "content";

/**
 * When a reaction runs: after any of `changes` (default: every change) of the resource declared
 * under the accessor `resource`, or after a content write of `contentUpdated`.
 */
export type ReactTrigger =
  | { resource: string; changes?: readonly ResourceChange[] }
  | { contentUpdated: string };

/** An entry of a flow's `reactions`. */
export interface ReactionConfig {
  reactTo: ReactTrigger;
  /** Runs with the change notice as input: `{ ref, kind, scope, change, path, uri, state?, previousState? }`. */
  block: AnyBlock;
}

/** A normalized reaction. */
export interface ReactionDefinition {
  readonly reactTo: { readonly resource: string; readonly changes: readonly ResourceChange[] };
  readonly block: AnyBlock;
}
