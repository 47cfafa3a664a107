import {
  type AnyResourceDefinition,
  type AnySingleResourceDefinition,
  FlowError,
  isCollectionDefinition,
  isExternalCollectionDefinition,
  isSingleResourceDefinition,
  type JsonObject,
  type ScopeAddress,
  type ScopeKind,
  type Versioned,
} from "@flowrt/core";
import { resourceAddress, scopeStateAddress } from "./address.js";
import { CollectionRuntime } from "./collection.js";
import { type TemplateSource, templateAccessor } from "./content.js";
import type { ResourceRuntimeContext } from "./context.js";
import { ExternalCollectionRuntime } from "./external-collection.js";
import { createScopeHandles, type ScopeRecordSource, type ScopeStateHandle } from "./scope-state.js";
import { SingleResourceRuntime } from "./single-resource.js";
import { unavailableHandle } from "./unavailable-handle.js";

export type ResourceRuntime = SingleResourceRuntime | CollectionRuntime | ExternalCollectionRuntime;

/** The resources and scope state of one request (or one client HTTP call). */
export interface ResourceScope {
  readonly context: ResourceRuntimeContext;
  /** `ctx.session`, `ctx.user`, `ctx.org`; call {@link ResourceScope.loadScopes} before reading `state`. */
  readonly scopes: { session: ScopeStateHandle; user: ScopeStateHandle; org: ScopeStateHandle };
  /** `ctx.resources`: accessor name → handle. */
  readonly handles: Record<string, any>;
  /** Reads the session, user and org state records. */
  loadScopes(): Promise<void>;
  /**
   * Loads declared resources: every named single resource (eager, or lazy when its block dispatches) and
   * every named eager collection (listed once). Lazy collections load per key access and external
   * collections never preload. Defaults to every declared accessor.
   */
  load(accessors?: readonly string[]): Promise<void>;
  /**
   * Adds declarations (an action's block-level resources when it runs). An accessor already declared
   * keeps its first definition: flow-level declarations take priority.
   */
  declare(declarations: Readonly<Record<string, AnyResourceDefinition>>): void;
  /** The declared definition of an accessor. */
  definition(accessor: string): AnyResourceDefinition | undefined;
  /** The runtime behind an accessor (undefined when undeclared or unavailable, e.g. org scope without an org). */
  runtime(accessor: string): ResourceRuntime | undefined;
  /** Why a declared accessor has no runtime (org scope in a session bound to no org); undefined otherwise. */
  unavailable(accessor: string): FlowError | undefined;
  /** Every declared accessor, in declaration order. */
  accessors(): string[];
}

/** The session, user and org state records as read at the start of a request (null: none stored). */
interface ScopeRecords {
  session: Versioned<JsonObject> | null;
  user: Versioned<JsonObject> | null;
  org: Versioned<JsonObject> | null;
}

/** Nothing stored for any of the three: one shared answer, not an object per run. */
const SCOPES: readonly ScopeKind[] = ["session", "user", "org"];
const NO_SCOPE_RECORDS: ScopeRecords = Object.freeze({ session: null, user: null, org: null });

/** The scope behind a `handles` object, for the shared lazy getters below. */
const SCOPE = Symbol("flowrt.resourceScope");

type Handles = Record<string, any> & { [SCOPE]: RequestResourceScope };

/**
 * One getter per accessor name, shared by every scope: reading `handles[accessor]` builds that runtime on
 * first use and replaces the getter with the handle, so a request pays only for the resources it touches.
 */
const lazyHandleGetters = new Map<string, (this: Handles) => unknown>();

function lazyHandleGetter(accessor: string): (this: Handles) => unknown {
  let getter = lazyHandleGetters.get(accessor);
  if (getter === undefined) {
    getter = function (this: Handles) {
      return this[SCOPE].handleOf(accessor);
    };
    lazyHandleGetters.set(accessor, getter);
  }
  return getter;
}

class RequestResourceScope implements ResourceScope, TemplateSource, ScopeRecordSource {
  readonly context: ResourceRuntimeContext;
  /** Declared accessors, made by the first declaration (most runs declare none). */
  private definitions: Map<string, AnyResourceDefinition> | undefined;
  /** Runtimes built so far (an `Error` when the resource is unavailable on this session). */
  private built: Map<string, ResourceRuntime | FlowError> | undefined;
  private scopeHandles: ResourceScope["scopes"] | undefined;
  /** What {@link loadScopes} read; the handles' cells start from it. */
  private preloaded: ScopeRecords | undefined;
  /** `ctx.resources`, made on first use (a client resource call never asks for it). */
  private handleObject: Handles | undefined;

  constructor(ctx: ResourceRuntimeContext, declarations: Readonly<Record<string, AnyResourceDefinition>>) {
    this.context = ctx;
    this.declare(declarations);
  }

  /** Built on first use: a client resource call never touches scope state, so it never pays for the handles. */
  get scopes(): ResourceScope["scopes"] {
    this.scopeHandles ??= createScopeHandles(this.context, this);
    return this.scopeHandles;
  }

  /** @internal The record {@link loadScopes} read for `scope` (undefined: not read). */
  recordOf(scope: ScopeKind): Versioned<JsonObject> | null | undefined {
    return this.preloaded?.[scope];
  }

  get handles(): Handles {
    if (this.handleObject === undefined) {
      this.handleObject = Object.defineProperty({} as Handles, SCOPE, { value: this });
      if (this.definitions !== undefined)
        for (const accessor of this.definitions.keys()) this.defineLazyHandle(accessor);
    }
    return this.handleObject;
  }

  /** Records the declarations; each runtime is built when its handle or runtime is first asked for. */
  declare(declarations: Readonly<Record<string, AnyResourceDefinition>>): void {
    for (const accessor of Object.keys(declarations)) {
      const definitions = (this.definitions ??= new Map());
      if (definitions.has(accessor)) continue;
      definitions.set(accessor, declarations[accessor]!);
      if (this.handleObject !== undefined) this.defineLazyHandle(accessor);
    }
  }

  private defineLazyHandle(accessor: string): void {
    Object.defineProperty(this.handleObject, accessor, {
      get: lazyHandleGetter(accessor),
      enumerable: true,
      configurable: true,
    });
  }

  /** The runtime of a declared accessor, built on first use (`undefined` when undeclared). */
  private runtimeOrError(accessor: string): ResourceRuntime | FlowError | undefined {
    let runtime = this.built?.get(accessor);
    if (runtime === undefined) {
      const def = this.definitions?.get(accessor);
      if (def === undefined) return undefined;
      runtime = this.build(accessor, def);
      (this.built ??= new Map()).set(accessor, runtime);
    }
    return runtime;
  }

  /** @internal The handle behind `handles[accessor]`; from then on the property holds it directly. */
  handleOf(accessor: string): unknown {
    const runtime = this.runtimeOrError(accessor);
    const handle = runtime instanceof Error ? unavailableHandle(runtime) : runtime?.handle;
    Object.defineProperty(this.handles, accessor, {
      value: handle,
      writable: true,
      enumerable: true,
      configurable: true,
    });
    return handle;
  }

  private build(accessor: string, def: AnyResourceDefinition): ResourceRuntime | FlowError {
    return buildResourceRuntime(this.context, this, accessor, def);
  }

  definition(accessor: string): AnyResourceDefinition | undefined {
    return this.definitions?.get(accessor);
  }

  runtime(accessor: string): ResourceRuntime | undefined {
    const runtime = this.runtimeOrError(accessor);
    return runtime instanceof Error ? undefined : runtime;
  }

  unavailable(accessor: string): FlowError | undefined {
    const runtime = this.runtimeOrError(accessor);
    return runtime instanceof Error ? runtime : undefined;
  }

  accessors(): string[] {
    return this.definitions === undefined ? [] : [...this.definitions.keys()];
  }

  /**
   * Reads the three records. A handle builds its cell on first use from them, so a run that never touches
   * `ctx.session`, `ctx.user` or `ctx.org` builds no cell; one built before the records arrived is primed.
   * A handle loaded by a read of its own keeps that read.
   */
  async loadScopes(): Promise<void> {
    // One read for the three (one round trip on a database); a scope without an address (no org) is not asked.
    const addresses: ScopeAddress[] = [];
    const places: ScopeKind[] = [];
    for (const scope of SCOPES) {
      const address = scopeStateAddress(this.context, scope);
      if (address === null) continue;
      addresses.push(address);
      places.push(scope);
    }
    const found = addresses.length === 0 ? [] : await this.context.stores.scopeState.getMany(addresses);
    const read: Record<ScopeKind, Versioned<JsonObject> | null> = { session: null, user: null, org: null };
    for (let i = 0; i < places.length; i++) read[places[i]!] = found[i] ?? null;
    const { session, user, org } = read;
    this.preloaded =
      session === null && user === null && org === null ? NO_SCOPE_RECORDS : { session, user, org };
    const handles = this.scopeHandles;
    if (handles === undefined) return;
    handles.session.prime(session);
    handles.user.prime(user);
    handles.org.prime(org);
  }

  load(accessors: readonly string[] = this.accessors()): Promise<void> {
    // Nothing declared (most runs, most blocks): no promise work beyond the answer.
    return accessors.length === 0 ? Promise.resolve() : this.loadEach(accessors);
  }

  private async loadEach(accessors: readonly string[]): Promise<void> {
    await Promise.all(
      accessors.map(async (accessor) => {
        const def = this.definitions?.get(accessor);
        // Only what loads is built here: lazy and external collections wait for their first use.
        if (def === undefined) return;
        if (
          !isSingleResourceDefinition(def) &&
          !(isCollectionDefinition(def) && def.prefetchMode === "eager")
        )
          return;
        const runtime = this.runtime(accessor);
        if (runtime instanceof SingleResourceRuntime) await runtime.load();
        else if (runtime instanceof CollectionRuntime) await runtime.load();
      }),
    );
  }

  /** Resolves a `contentTemplateRef` (a definition or an accessor name) and reads the template live. */
  async templateText(ref: AnySingleResourceDefinition | string, requester: string): Promise<string | null> {
    const accessor = templateAccessor(ref, this.definitions ?? []);
    let runtime = accessor === undefined ? undefined : this.runtime(accessor);
    if (runtime === undefined && typeof ref !== "string" && accessor !== undefined) {
      // The template resource need not be declared where the templated one is: reach it by its own name.
      const built = this.build(accessor, ref);
      if (!(built instanceof Error)) runtime = built;
    }
    if (!(runtime instanceof SingleResourceRuntime)) {
      throw new FlowError(
        "definition-error",
        `Resource "${requester}" contentTemplateRef points at ${typeof ref === "string" ? `"${ref}"` : "a resource"}, which is not a single resource declared on this flow.`,
      );
    }
    return runtime.handle.readContentRaw();
  }
}

/**
 * The runtime of one declared resource, or the reason it is unavailable on this session (an org-scoped
 * resource on a session without an org). `source` resolves `contentTemplateRef`s.
 */
export function buildResourceRuntime(
  ctx: ResourceRuntimeContext,
  source: TemplateSource,
  accessor: string,
  def: AnyResourceDefinition,
): ResourceRuntime | FlowError {
  let address: ReturnType<typeof resourceAddress>;
  try {
    address = resourceAddress(ctx, def, accessor);
  } catch (error) {
    return error as FlowError;
  }
  if (isSingleResourceDefinition(def)) return new SingleResourceRuntime(ctx, source, accessor, def, address);
  if (isCollectionDefinition(def)) return new CollectionRuntime(ctx, source, accessor, def, address);
  if (isExternalCollectionDefinition(def)) return new ExternalCollectionRuntime(ctx, accessor, def, address);
  return new FlowError(
    "definition-error",
    `"${accessor}" is declared as a resource but is not a resource definition.`,
  );
}

/**
 * Creates the resource scope of one request: scope state handles and a handle per declared resource.
 * Nothing is read until {@link ResourceScope.loadScopes} / {@link ResourceScope.load} (or a handle call).
 */
export function createResourceScope(
  ctx: ResourceRuntimeContext,
  declarations: Readonly<Record<string, AnyResourceDefinition>> = {},
): ResourceScope & TemplateSource {
  return new RequestResourceScope(ctx, declarations);
}
