import {
  type AnyResourceDefinition,
  type AnySingleResourceDefinition,
  FlowError,
  isCollectionDefinition,
  isExternalCollectionDefinition,
  isSingleResourceDefinition,
} from "@flowrt/core";
import { resourceAddress } from "./address.js";
import { CollectionRuntime } from "./collection.js";
import type { TemplateSource } from "./content.js";
import type { ResourceRuntimeContext } from "./context.js";
import { ExternalCollectionRuntime } from "./external-collection.js";
import { createScopeHandles, type ScopeStateHandle } from "./scope-state.js";
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
  /** Every declared accessor, in declaration order. */
  accessors(): string[];
}

class RequestResourceScope implements ResourceScope, TemplateSource {
  readonly context: ResourceRuntimeContext;
  readonly handles: Record<string, any> = {};
  private readonly definitions = new Map<string, AnyResourceDefinition>();
  private readonly runtimes = new Map<string, ResourceRuntime>();
  private scopeHandles: ResourceScope["scopes"] | undefined;

  constructor(ctx: ResourceRuntimeContext, declarations: Readonly<Record<string, AnyResourceDefinition>>) {
    this.context = ctx;
    this.declare(declarations);
  }

  /** Built on first use: a client resource call never touches scope state, so it never pays for the handles. */
  get scopes(): ResourceScope["scopes"] {
    this.scopeHandles ??= createScopeHandles(this.context);
    return this.scopeHandles;
  }

  declare(declarations: Readonly<Record<string, AnyResourceDefinition>>): void {
    for (const [accessor, def] of Object.entries(declarations)) {
      if (this.definitions.has(accessor)) continue;
      this.definitions.set(accessor, def);
      const runtime = this.build(accessor, def);
      if (runtime instanceof Error) {
        this.handles[accessor] = unavailableHandle(runtime);
      } else {
        this.runtimes.set(accessor, runtime);
        this.handles[accessor] = runtime.handle;
      }
    }
  }

  private build(accessor: string, def: AnyResourceDefinition): ResourceRuntime | FlowError {
    let address: ReturnType<typeof resourceAddress>;
    try {
      address = resourceAddress(this.context, def, accessor);
    } catch (error) {
      return error as FlowError;
    }
    if (isSingleResourceDefinition(def))
      return new SingleResourceRuntime(this.context, this, accessor, def, address);
    if (isCollectionDefinition(def)) return new CollectionRuntime(this.context, this, accessor, def, address);
    if (isExternalCollectionDefinition(def))
      return new ExternalCollectionRuntime(this.context, accessor, def, address);
    return new FlowError(
      "definition-error",
      `"${accessor}" is declared as a resource but is not a resource definition.`,
    );
  }

  definition(accessor: string): AnyResourceDefinition | undefined {
    return this.definitions.get(accessor);
  }

  runtime(accessor: string): ResourceRuntime | undefined {
    return this.runtimes.get(accessor);
  }

  accessors(): string[] {
    return [...this.definitions.keys()];
  }

  async loadScopes(): Promise<void> {
    await Promise.all([this.scopes.session.load(), this.scopes.user.load(), this.scopes.org.load()]);
  }

  async load(accessors: readonly string[] = this.accessors()): Promise<void> {
    await Promise.all(
      accessors.map(async (accessor) => {
        const runtime = this.runtimes.get(accessor);
        if (runtime instanceof SingleResourceRuntime) await runtime.load();
        else if (runtime instanceof CollectionRuntime && runtime.def.prefetchMode === "eager")
          await runtime.load();
      }),
    );
  }

  /** Resolves a `contentTemplateRef` (a definition or an accessor name) and reads the template live. */
  async templateText(ref: AnySingleResourceDefinition | string, requester: string): Promise<string | null> {
    const accessor =
      typeof ref === "string"
        ? ref
        : ([...this.definitions].find(([, def]) => def === ref)?.[0] ?? ref.ref ?? ref.name);
    let runtime = accessor === undefined ? undefined : this.runtimes.get(accessor);
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
 * Creates the resource scope of one request: scope state handles and a handle per declared resource.
 * Nothing is read until {@link ResourceScope.loadScopes} / {@link ResourceScope.load} (or a handle call).
 */
export function createResourceScope(
  ctx: ResourceRuntimeContext,
  declarations: Readonly<Record<string, AnyResourceDefinition>> = {},
): ResourceScope {
  return new RequestResourceScope(ctx, declarations);
}
