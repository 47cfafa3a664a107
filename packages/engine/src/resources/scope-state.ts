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

/** Where a handle finds the record its request read at the start (undefined: none read yet). */
export interface ScopeRecordSource {
  recordOf(scope: ScopeKind): Versioned<JsonObject> | null | undefined;
}

/**
 * `ctx.session`, `ctx.user` and `ctx.org`: a state cell over the scope state store. Every write emits
 * `state_change` with the scope's client projection (never raw state) when the scope declares `client`.
 * On a session without an org, `ctx.org.state` reads the schema defaults and every write is refused.
 * The cell (its schema, backend and closures) is built on first use, from the record the request read
 * at its start when there is one: a run that never touches scope state holds three small handles.
 */
export class ScopeStateHandle implements StateHandle<JsonObject> {
  readonly scope: ScopeKind;
  private readonly ctx: ResourceRuntimeContext;
  private readonly records: ScopeRecordSource | undefined;
  /** `undefined` until built; `null` when there is no record to hold (org scope without an org). */
  private builtCell: StateCell | null | undefined;
  private builtSchema: z.ZodType | undefined;

  constructor(ctx: ResourceRuntimeContext, scope: ScopeKind, records?: ScopeRecordSource) {
    this.ctx = ctx;
    this.scope = scope;
    this.records = records;
  }

  private get cell(): StateCell | null {
    if (this.builtCell === undefined) this.build();
    return this.builtCell!;
  }

  private get schema(): z.ZodType {
    if (this.builtSchema === undefined) this.build();
    return this.builtSchema!;
  }

  private build(): void {
    const { ctx, scope } = this;
    const address = scopeStateAddress(ctx, scope);
    const config = configOf(ctx, scope);
    const schema = cellSchema(config, address?.bucket === SHARED_BUCKET && scope !== "session");
    this.builtSchema = schema;
    if (address === null) {
      this.builtCell = null;
      return;
    }
    const cell = new StateCell({
      name: scope,
      schema,
      backend: scopeStateCellBackend(ctx.stores.scopeState, address, ctx),
      onChange: async ({ next }) => {
        const client = config?.client;
        if (client === undefined) return;
        await ctx.emit("state_change", {
          scope,
          clientData: projectScopeState(ctx, scope, client, next),
        });
      },
    });
    const read = this.records?.recordOf(scope);
    if (read !== undefined) cell.prime(read);
    this.builtCell = cell;
  }

  async load(): Promise<void> {
    await this.cell?.load();
  }

  /** Starts from a record read elsewhere (null: none stored), unless the cell already holds a read. */
  prime(stored: Versioned<JsonObject> | null): void {
    const cell = this.builtCell;
    if (cell != null && !cell.isLoaded) cell.prime(stored);
  }

  get isLoaded(): boolean {
    const cell = this.cell;
    return cell === null || cell.isLoaded;
  }

  get state(): JsonObject {
    const cell = this.cell;
    if (cell !== null) return cell.state;
    const parsed = this.schema.safeParse({});
    return parsed.success && typeof parsed.data === "object" && parsed.data !== null
      ? (parsed.data as JsonObject)
      : {};
  }

  private writable(): StateCell {
    const cell = this.cell;
    if (cell === null) throw orgMissingError(this.ctx, "Org state");
    return cell;
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
export function createScopeHandles(
  ctx: ResourceRuntimeContext,
  records?: ScopeRecordSource,
): {
  session: ScopeStateHandle;
  user: ScopeStateHandle;
  org: ScopeStateHandle;
} {
  return {
    session: new ScopeStateHandle(ctx, "session", records),
    user: new ScopeStateHandle(ctx, "user", records),
    org: new ScopeStateHandle(ctx, "org", records),
  };
}
