/**
 * The types of resource definitions: the options each define function accepts and the frozen definition
 * objects they return. The engine reads definitions through these types; applications mostly use
 * {@link HandleOf} and {@link ResourceStateOf}.
 */
import type { z } from "zod";
import type { DEFINITION_KIND } from "../brand.js";
import type {
  CollectionHandle,
  CollectionKey,
  ExternalCollectionHandle,
  ExternalQuery,
  ResourceHandle,
} from "../runtime-types.js";
import type { JsonObject, ScopeKind } from "../store/contract.js";
import type { CollectionClientConfig, ExternalClientConfig, SingleClientConfig } from "./client-config.js";
import type { ResourceClientView } from "./client-view.js";
import type { CompiledPattern } from "./pattern.js";

/** Any zod object schema: the only kind of `stateSchema` a resource accepts. */
export type StateSchema = z.ZodObject;

/**
 * The schema used when `stateSchema` is omitted: any JSON object (`z.object({}).catchall(z.json())`). Unknown
 * fields are kept, so `expose`/`exclude` names are not checked against it.
 */
export type DefaultStateSchema = z.ZodObject<{}, z.core.$catchall<z.ZodJSONSchema>>;

export type PrefetchMode = "eager" | "lazy";
export type Eviction = "none" | "lru" | "oldest";
export type MaybePromise<T> = T | Promise<T>;

/** Resolve `contentFile` relative to the declaring module: `{ path: "./intro.md", importerUrl: import.meta.url }`. */
export interface ContentFileRef {
  path: string;
  /** A `file:` URL, normally `import.meta.url`. */
  importerUrl: string | URL;
}

/** The `ctx` a collection's instance hooks receive. */
export interface InstanceHookContext {
  log(message: string): void;
  scopeType: ScopeKind;
}

/** The key type of a pattern: an object of parameters for `[name]` patterns, a string otherwise. */
export type PatternKey<TPattern extends string> = string extends TPattern
  ? CollectionKey
  : TPattern extends `${string}[${string}]${string}`
    ? Record<PatternParams<TPattern>, string>
    : string;

/** The parameter names of a `[name]` pattern, e.g. `"topic"` for `"[topic]/notes"`. */
export type PatternParams<TPattern extends string> = TPattern extends `${string}[${infer P}]${infer Rest}`
  ? P | PatternParams<Rest>
  : never;

/**
 * The `ctx` of an external collection's `read` and `search`: derived by the runtime from the request, never
 * from caller input.
 */
export interface ExternalContext {
  scope: ScopeKind;
  /** The resolved session, user or org id. */
  scopeId: string;
  userId: string;
  orgId?: string;
  tenantId?: string;
  flowKind: string;
  signal?: AbortSignal;
}

export interface ExternalSearchResult<TRecord = unknown> {
  hits: { key: string; state: TRecord }[];
  /** Opaque; omitted on the last page. */
  nextCursor?: string;
}

// ---------------------------------------------------------------------------------------------
// Options

interface CommonOptions<TSchema extends StateSchema> {
  /** Display name used in error messages until a flow registers the resource under its accessor. */
  name?: string;
  /** Where the resource lives: one conversation, across a user's sessions, or shared in an org. */
  scope: ScopeKind;
  /**
   * A zod object schema of the state. State writes persist only when the result satisfies it.
   * @default z.object({}).catchall(z.json()) (any JSON object)
   */
  stateSchema?: TSchema;
  /** Lets generators read the content through the generic content tools. @default false */
  llmReadable?: boolean;
  /** Markdown template (frontmatter plus a `<system>` body) the content is rendered from. */
  contentTemplate?: string;
}

/** Options of {@link defineResource}. */
export interface ResourceOptions<
  TSchema extends StateSchema = DefaultStateSchema,
  TClient extends SingleClientConfig<z.output<TSchema>> | undefined =
    | SingleClientConfig<z.output<TSchema>>
    | undefined,
> extends CommonOptions<TSchema> {
  /** Initial content body. Mutually exclusive with `contentFile`. */
  content?: string;
  /**
   * File to load the initial content from (read lazily by the runtime). A bare string resolves from the
   * working directory; `{ path, importerUrl: import.meta.url }` resolves relative to the declaring module.
   */
  contentFile?: string | ContentFileRef;
  /** Renders content reads from the stored body and the state. */
  render?: (content: string, state: z.output<TSchema>) => string;
  /** A live-editable single resource (or its accessor name) holding the content template. */
  contentTemplateRef?: AnySingleResourceDefinition | string;
  /** When `false`, every state write (patch, set, update, inc, push) is refused. @default true */
  writable?: boolean;
  /** Lets generators write the content through the generic content tools. @default false */
  llmWritable?: boolean;
  /** User and org scope only: store it per flow copy instead of sharing it across flows. @default false */
  flowIsolation?: boolean;
  /** Session scope only: one identity across the conversation and every session dispatched beneath it. @default false */
  sharedToLineage?: boolean;
  /** Accessor name used alongside `sharedToLineage`. */
  ref?: string;
  /** Initial state; must satisfy `stateSchema` (checked when the definition is made). */
  default?: z.input<TSchema>;
  /** `lazy` loads the resource when the block declaring it dispatches. @default "eager" */
  prefetchMode?: PrefetchMode;
  /** Client access. Without it the resource is invisible to clients. */
  client?: TClient;
}

/** Options of {@link defineResourceCollection}. */
export interface CollectionOptions<
  TSchema extends StateSchema = DefaultStateSchema,
  TPattern extends string = string,
  TClient extends CollectionClientConfig<z.output<TSchema>> | undefined =
    | CollectionClientConfig<z.output<TSchema>>
    | undefined,
> extends CommonOptions<TSchema> {
  /** `files/*` (one segment), `files/**` (one or more, last only) or `[topic]/notes` (named segments). */
  pattern: TPattern;
  /** Applies to every instance. @default false */
  llmWritable?: boolean;
  /** Cap on live instances (an integer ≥ 1). @default undefined (unbounded) */
  maxInstances?: number;
  /** What happens at `maxInstances`: `none` refuses the create, `lru`/`oldest` evict. @default "none" */
  eviction?: Eviction;
  /** `lazy` loads instances per key access. @default "eager" */
  prefetchMode?: PrefetchMode;
  /** Number of first items (storage-key order) inlined in the snapshot. @default 0 */
  prefetchWindow?: number;
  /**
   * After an instance was created. `key` is its full storage key (`notes/a` for pattern `notes/*`, `t1/notes` for
   * `[topic]/notes`), as list pages, events and client answers name items.
   */
  onInstanceCreated?: (key: string, state: z.output<TSchema>, ctx: InstanceHookContext) => void;
  /** After an instance's state changed; `key` is its full storage key. */
  onInstanceUpdated?: (
    key: string,
    state: z.output<TSchema>,
    prevState: z.output<TSchema>,
    ctx: InstanceHookContext,
  ) => void;
  /** After an instance was deleted (an eviction too); `key` is its full storage key. */
  onInstanceDeleted?: (key: string, ctx: InstanceHookContext) => void;
  /** Session scope only. @default false */
  sharedToLineage?: boolean;
  /** User and org scope only. @default false */
  flowIsolation?: boolean;
  ref?: string;
  render?: (content: string, state: z.output<TSchema>) => string;
  contentTemplateRef?: AnySingleResourceDefinition | string;
  client?: TClient;
}

/** Options of {@link defineExternalCollection}. */
export interface ExternalCollectionOptions<
  TSchema extends StateSchema = DefaultStateSchema,
  TClient extends ExternalClientConfig<z.output<TSchema>> | undefined =
    | ExternalClientConfig<z.output<TSchema>>
    | undefined,
> extends CommonOptions<TSchema> {
  /** Wildcard only: `x/*` or `x/**`. */
  pattern: string;
  /** Returns the record's state, or `null` when there is none. The result is validated through `stateSchema`. */
  read: (args: { key: string; ctx: ExternalContext }) => MaybePromise<z.input<TSchema> | null>;
  search?: (args: {
    query: ExternalQuery;
    ctx: ExternalContext;
  }) => MaybePromise<ExternalSearchResult<z.input<TSchema>>>;
  client?: TClient;
}

// ---------------------------------------------------------------------------------------------
// Definitions

interface DefinitionCommon<TState, TClientView> {
  readonly [DEFINITION_KIND]: "resource";
  readonly name: string | undefined;
  readonly scope: ScopeKind;
  /** A zod object schema at runtime. */
  readonly stateSchema: z.ZodType<TState>;
  readonly llmReadable: boolean;
  readonly contentTemplate: string | undefined;
  /**
   * Type-level only, never present at runtime: what clients see of the resource ({@link ResourceClientView}),
   * `unknown` when it has no `client` block. `@flowrt/client` reads it to type the resource endpoints.
   */
  readonly "~client"?: TClientView;
}

export interface SingleResourceDefinition<TState = JsonObject, TClientView = unknown>
  extends DefinitionCommon<TState, TClientView> {
  readonly type: "single";
  readonly content: string | undefined;
  /** Absolute path of `contentFile`, resolved when the definition was made. */
  readonly contentFilePath: string | undefined;
  render?(content: string, state: TState): string;
  readonly contentTemplateRef: AnySingleResourceDefinition | string | undefined;
  readonly writable: boolean;
  readonly llmWritable: boolean;
  readonly flowIsolation: boolean;
  readonly sharedToLineage: boolean;
  readonly ref: string | undefined;
  /** The parsed (defaults applied), deeply frozen initial state, when `default` was given. */
  readonly default: TState | undefined;
  readonly prefetchMode: PrefetchMode;
  readonly client: SingleClientConfig<TState> | undefined;
}

export interface CollectionDefinition<TState = JsonObject, TClientView = unknown>
  extends DefinitionCommon<TState, TClientView> {
  readonly type: "collection";
  readonly pattern: string;
  readonly compiledPattern: CompiledPattern;
  readonly llmWritable: boolean;
  readonly maxInstances: number | undefined;
  readonly eviction: Eviction;
  readonly prefetchMode: PrefetchMode;
  readonly prefetchWindow: number;
  /** `key` is the instance's full storage key (`notes/a`), in every hook. */
  onInstanceCreated?(key: string, state: TState, ctx: InstanceHookContext): void;
  onInstanceUpdated?(key: string, state: TState, prevState: TState, ctx: InstanceHookContext): void;
  onInstanceDeleted?(key: string, ctx: InstanceHookContext): void;
  readonly sharedToLineage: boolean;
  readonly flowIsolation: boolean;
  readonly ref: string | undefined;
  render?(content: string, state: TState): string;
  readonly contentTemplateRef: AnySingleResourceDefinition | string | undefined;
  readonly client: CollectionClientConfig<TState> | undefined;
}

export interface ExternalCollectionDefinition<TState = JsonObject, TClientView = unknown>
  extends DefinitionCommon<TState, TClientView> {
  readonly type: "external";
  readonly pattern: string;
  readonly compiledPattern: CompiledPattern;
  /** May return a promise; the runtime validates the result through `stateSchema`. */
  read(args: { key: string; ctx: ExternalContext }): unknown;
  search?(args: { query: ExternalQuery; ctx: ExternalContext }): MaybePromise<ExternalSearchResult>;
  readonly client: ExternalClientConfig<TState> | undefined;
}

export type ResourceDefinition<TState = JsonObject, TClientView = unknown> =
  | SingleResourceDefinition<TState, TClientView>
  | CollectionDefinition<TState, TClientView>
  | ExternalCollectionDefinition<TState, TClientView>;

export type AnySingleResourceDefinition = SingleResourceDefinition<any>;
export type AnyResourceDefinition = ResourceDefinition<any>;

/** The state type of a definition: `z.output` of its `stateSchema`. */
export type ResourceStateOf<TDef> = TDef extends { readonly stateSchema: infer S extends z.ZodType }
  ? z.output<S>
  : never;

/** Handles require JSON-object state; a schema whose output is not one (e.g. holds a Date) gets `JsonObject`. */
type JsonState<TState> = TState extends JsonObject ? TState : JsonObject;

/** The handle a block gets for a definition: single → `ResourceHandle`, collection → `CollectionHandle`, external → `ExternalCollectionHandle`. */
export type HandleOf<TDef> = TDef extends { readonly type: "single" }
  ? ResourceHandle<JsonState<ResourceStateOf<TDef>>>
  : TDef extends { readonly type: "collection" }
    ? CollectionHandle<JsonState<ResourceStateOf<TDef>>>
    : TDef extends { readonly type: "external" }
      ? ExternalCollectionHandle<JsonState<ResourceStateOf<TDef>>>
      : never;
