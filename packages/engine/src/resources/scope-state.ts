import {
  defaultStateSchema,
  type JsonObject,
  type ScopeKind,
  SHARED_BUCKET,
  type StateHandle,
  type Versioned,
} from "@flowrt/core";
import type { z } from "zod";
import { StateCell } from "../state/state-cell.js";
import { orgMissingError, scopeStateAddress } from "./address.js";
import { scopeStateCellBackend } from "./cell-backends.js";
import type { ResourceRuntimeContext, ScopeConfigView } from "./context.js";
import { projectScopeState } from "./events.js";

/** Zod schemas are immutable: one default schema and one loose copy per schema serve every request. */
let defaultSchema: z.ZodType | undefined;
const looseCopies = new WeakMap<z.ZodType, z.ZodType>();

/**
 * The schema a scope cell validates with. Shared user/org records are written by every flow of the
 * host, each knowing only its own schema; a strict object schema would drop the other flows' fields
 * on every write, so shared records are validated with unknown keys kept.
 */
function cellSchema(config: ScopeConfigView | undefined, shared: boolean): z.ZodType {
  const schema = config?.stateSchema ?? (defaultSchema ??= defaultStateSchema());
  if (!shared) return schema;
  const cached = looseCopies.get(schema);
  if (cached !== undefined) return cached;
  const loose = (schema as { loose?: () => z.ZodType }).loose;
  const copy = typeof loose === "function" ? loose.call(schema) : schema;
  looseCopies.set(schema, copy);
  return copy;
}

function configOf(ctx: ResourceRuntimeContext, scope: ScopeKind): ScopeConfigView | undefined {
  return ctx.flow[scope];
}

/**
 * `ctx.session`, `ctx.user` and `ctx.org`: a state cell over the scope state store. Every write emits
 * `state_change` with the scope's client projection (never raw state) when the scope declares `client`.
 * On a session without an org, `ctx.org.state` reads the schema defaults and every write is refused.
 */
export class ScopeStateHandle implements StateHandle<JsonObject> {
  readonly scope: ScopeKind;
  private readonly ctx: ResourceRuntimeContext;
  private readonly cell: StateCell | null;
  private readonly schema: z.ZodType;

  constructor(ctx: ResourceRuntimeContext, scope: ScopeKind) {
    this.ctx = ctx;
    this.scope = scope;
    const address = scopeStateAddress(ctx, scope);
    const config = configOf(ctx, scope);
    this.schema = cellSchema(config, address?.bucket === SHARED_BUCKET && scope !== "session");
    this.cell =
      address === null
        ? null
        : new StateCell({
            name: scope,
            schema: this.schema,
            backend: scopeStateCellBackend(ctx.stores.scopeState, address),
            onChange: async ({ next }) => {
              const client = config?.client;
              if (client === undefined) return;
              await ctx.emit("state_change", {
                scope,
                clientData: projectScopeState(ctx, scope, client, next),
              });
            },
          });
  }

  async load(): Promise<void> {
    await this.cell?.load();
  }

  /** Starts from a record read elsewhere (null: none stored), without a read of its own. */
  prime(stored: Versioned<JsonObject> | null): void {
    this.cell?.prime(stored);
  }

  get isLoaded(): boolean {
    return this.cell === null || this.cell.isLoaded;
  }

  get state(): JsonObject {
    if (this.cell !== null) return this.cell.state;
    const parsed = this.schema.safeParse({});
    return parsed.success && typeof parsed.data === "object" && parsed.data !== null
      ? (parsed.data as JsonObject)
      : {};
  }

  private writable(): StateCell {
    if (this.cell === null) throw orgMissingError(this.ctx, "Org state");
    return this.cell;
  }

  patchState(partial: Partial<JsonObject>): Promise<void> {
    return this.writable().patchState(partial);
  }
  setState(state: Partial<JsonObject>): Promise<void> {
    return this.writable().setState(state);
  }
  updateState(fn: (current: JsonObject) => JsonObject): Promise<void> {
    return this.writable().updateState(fn);
  }
  incState(deltas: Partial<Record<string, number>>): Promise<void> {
    return this.writable().incState(deltas);
  }
  pushState(field: string, element: never): Promise<void> {
    return this.writable().pushState(field, element);
  }
  getOrPatchState<K extends string>(key: K, compute: () => unknown): Promise<any> {
    return this.writable().getOrPatchState(key, compute);
  }
}

/** Creates the three scope handles of a request. */
export function createScopeHandles(ctx: ResourceRuntimeContext): {
  session: ScopeStateHandle;
  user: ScopeStateHandle;
  org: ScopeStateHandle;
} {
  return {
    session: new ScopeStateHandle(ctx, "session"),
    user: new ScopeStateHandle(ctx, "user"),
    org: new ScopeStateHandle(ctx, "org"),
  };
}
