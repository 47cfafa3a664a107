import { type CasResult, FlowError, type JsonObject, type JsonValue, type Versioned } from "@flowrt/core";
import type { z } from "zod";
import { CAS_LOST, type CasPolicy, casDone, retryCas } from "./cas.js";
import { withSchemaDefaults } from "./defaults.js";
import { applyIncrements, applyPatch, applyPush } from "./delta.js";
import { cloneJson, findNonJson, isPlainObject, renameProtoKeys, restoreProtoKeys } from "./json.js";

/** Returned by a mutation's compute to write nothing. */
export const SKIP_WRITE: unique symbol = Symbol("skip-write");

/** Where a cell's value lives: one versioned JSON object behind compare-and-swap. */
export interface CellBackend {
  read(): Promise<Versioned<JsonObject> | null>;
  /** `expectedVersion: null` means "only if absent". */
  write(value: JsonObject, expectedVersion: number | null): Promise<CasResult<JsonObject>>;
}

export type StateWriteMethod =
  | "patchState"
  | "setState"
  | "updateState"
  | "incState"
  | "pushState"
  | "getOrPatchState";

export interface StateChange {
  method: StateWriteMethod;
  previous: JsonObject;
  next: JsonObject;
  /** `true` when the write created the stored value. */
  created: boolean;
  version: number;
}

export interface StateCellOptions {
  /** Used in error messages: `Resource "<name>" …`. */
  name: string;
  schema: z.ZodType;
  backend: CellBackend;
  /** When false, every writer is refused. @default true */
  writable?: boolean;
  /** Called after every successful write, in write order. */
  onChange?: (change: StateChange) => void | Promise<void>;
  /**
   * A write gives up (`write-conflict`) once it has lost this many races and has been retrying for
   * {@link retryWindowMs}: many writers on one key (a busy counter, several hosts) take turns rather than fail.
   * @default 100
   */
  maxRetries?: number;
  /** See {@link maxRetries}. @default 10_000 */
  retryWindowMs?: number;
  /**
   * Collection instances: a write finding the value gone (deleted, here or by another request) is
   * refused with `instance-not-found` instead of re-creating it from defaults. @default false
   */
  mustExist?: boolean;
}

/**
 * One versioned JSON state behind compare-and-swap: the engine's session, user and org state and
 * every resource instance are cells. A write computes the next state from the freshest known value,
 * validates it against the schema, and swaps it in only if nobody wrote in between; a lost race
 * re-reads and recomputes, so concurrent deltas from any number of requests all land.
 */
export class StateCell {
  readonly name: string;
  private readonly options: StateCellOptions;
  private current: JsonObject | undefined;
  private version: number | null = null;
  private loaded = false;
  /** In-flight `getOrPatchState` computations by key; made by the first one (most cells never have any). */
  private pendingComputes: Map<string, Promise<unknown>> | undefined;

  constructor(options: StateCellOptions) {
    this.options = options;
    this.name = options.name;
  }

  get isLoaded(): boolean {
    return this.loaded;
  }

  /** Whether a stored value exists (after {@link load}). */
  get exists(): boolean {
    return this.version !== null && this.current !== undefined;
  }

  get storedVersion(): number | null {
    return this.version;
  }

  /** Reads the stored value (defaults applied when nothing is stored). */
  async load(): Promise<this> {
    const stored = await this.options.backend.read();
    this.adopt(stored);
    this.loaded = true;
    return this;
  }

  /** Adopts a value read elsewhere (e.g. from a list page) without another read. */
  prime(stored: Versioned<JsonObject> | null): this {
    this.adopt(stored);
    this.loaded = true;
    return this;
  }

  /** The current state, synchronously. Reads return a copy: mutating it changes nothing stored. */
  get state(): JsonObject {
    if (!this.loaded) {
      throw new FlowError(
        "internal-error",
        `Resource "${this.name}" was read before it was loaded; declare it on the flow or the block that uses it.`,
      );
    }
    return cloneJson(this.current ?? this.defaults());
  }

  async patchState(partial: Record<string, unknown>): Promise<void> {
    this.assertObjectArgument("patchState", partial);
    refuseNonJson(this.name, "patchState", partial);
    return this.mutate("patchState", (current) => applyPatch(current, partial));
  }

  async setState(full: Record<string, unknown>): Promise<void> {
    this.assertObjectArgument("setState", full);
    refuseNonJson(this.name, "setState", full);
    return this.mutate("setState", () => applyPatch({}, full));
  }

  updateState(fn: (current: JsonObject) => JsonObject): Promise<void> {
    return this.mutate("updateState", (current) => {
      const next = fn(current);
      if (!isPlainObject(next)) throw this.refuse("updateState", "the updater did not return a JSON object");
      return next as JsonObject;
    });
  }

  incState(deltas: Record<string, unknown>): Promise<void> {
    this.assertObjectArgument("incState", deltas);
    return this.mutate("incState", (current) => applyIncrements(this.name, current, deltas));
  }

  async pushState(field: string, element: unknown): Promise<void> {
    refuseNonJson(this.name, "pushState", { [field]: [element] });
    return this.mutate("pushState", (current) => applyPush(this.name, current, field, element as JsonValue));
  }

  /**
   * Returns the field when present (a stored `null` counts), else computes, stores and returns it.
   * Concurrent misses of one key share one compute; a compute returning `undefined` stores nothing.
   */
  async getOrPatchState(key: string, compute: () => unknown): Promise<unknown> {
    const now = this.current ?? this.defaults();
    if (Object.hasOwn(now, key) && now[key] !== undefined) return cloneJson(now[key] as JsonValue);
    const pending = this.pendingComputes?.get(key);
    if (pending) return pending;
    const run = (async () => {
      const value = await compute();
      if (value === undefined) return undefined;
      refuseNonJson(this.name, "getOrPatchState", { [key]: value });
      let stored: unknown = value;
      await this.mutate("getOrPatchState", (current) => {
        // Someone else may have stored the field while we computed: theirs wins.
        if (Object.hasOwn(current, key) && current[key] !== undefined) {
          stored = current[key];
          return SKIP_WRITE;
        }
        return applyPatch(current, { [key]: value });
      });
      return cloneJson(stored as JsonValue);
    })();
    (this.pendingComputes ??= new Map()).set(key, run);
    try {
      return await run;
    } finally {
      this.pendingComputes?.delete(key);
    }
  }

  /**
   * The compare-and-swap loop shared by every writer. `compute` runs on a private copy of the freshest
   * known state; it may run more than once (after a lost race), so it must be free of side effects.
   */
  async mutate(
    method: StateWriteMethod,
    compute: (current: JsonObject) => JsonObject | typeof SKIP_WRITE,
  ): Promise<void> {
    if (this.options.writable === false) {
      throw this.refuse(method, "it is not writable (writable: false)");
    }
    if (!this.loaded) await this.load();
    const policy: CasPolicy = {
      what: `Resource "${this.name}" ${method}`,
      attempts: (this.options.maxRetries ?? 100) + 1,
      windowMs: this.options.retryWindowMs ?? 10_000,
    };
    await retryCas(policy, async () => {
      if (this.options.mustExist && this.current === undefined) {
        throw new FlowError(
          "instance-not-found",
          `Resource "${this.name}" no longer exists (it was deleted); ${method} wrote nothing.`,
        );
      }
      const previous = this.current ?? this.defaults();
      const candidate = compute(cloneJson(previous));
      if (candidate === SKIP_WRITE) return casDone(undefined);
      const next = this.validate(method, candidate);
      const expected = this.current === undefined ? null : this.version;
      const result = await this.options.backend.write(next, expected);
      if (!result.ok) {
        this.adopt(result.current);
        return CAS_LOST;
      }
      const created = expected === null;
      this.current = next;
      this.version = result.version;
      await this.options.onChange?.({
        method,
        previous,
        next: cloneJson(next),
        created,
        version: result.version,
      });
      return casDone(undefined);
    });
  }

  /** Parses the candidate through the schema; a refusal stores nothing. */
  validate(method: string, candidate: unknown): JsonObject {
    if (!isPlainObject(candidate)) throw this.refuse(method, "the result is not a JSON object");
    const parsed = this.options.schema.safeParse(renameProtoKeys(candidate));
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      const field = issue?.path.join(".") || "(state)";
      throw new FlowError(
        "resource-write-refused",
        `Resource "${this.name}" ${method} refused: field "${field}" ${issue?.message ?? "is invalid"}; nothing was stored.`,
        {
          details: {
            field,
            issues: parsed.error.issues.map((i) => ({ path: i.path.map(String), message: i.message })),
          },
        },
      );
    }
    return acceptState(this.name, method, restoreProtoKeys(parsed.data));
  }

  private adopt(stored: Versioned<JsonObject> | null): void {
    // A field the schema added (with a default) since the record was written reads as its default.
    this.current = stored ? withSchemaDefaults(this.options.schema, cloneJson(stored.value)) : undefined;
    this.version = stored ? stored.version : null;
  }

  private defaults(): JsonObject {
    const parsed = this.options.schema.safeParse({});
    return parsed.success && isPlainObject(parsed.data) ? cloneJson(parsed.data as JsonObject) : {};
  }

  private assertObjectArgument(method: string, value: unknown): void {
    if (!isPlainObject(value)) throw this.refuse(method, "its argument is not an object");
  }

  private refuse(method: string, reason: string): FlowError {
    return refusal(this.name, method, reason);
  }
}

/**
 * Refuses a write's argument that holds something JSON cannot (a `Date`, `Map`, `Set` or class instance, a
 * non-finite number…), naming the field. Checked once, before the write's compare-and-swap loop: the deep
 * copy the write makes would otherwise turn such a value into `{}` (or its own fields) without a word.
 */
export function refuseNonJson(name: string, method: string, argument: Record<string, unknown>): void {
  const bad = findNonJson(argument);
  if (bad) {
    throw new FlowError(
      "resource-write-refused",
      `Resource "${name}" ${method} refused: field "${bad.path}" holds ${bad.found}, which is not JSON.`,
      { details: { field: bad.path } },
    );
  }
}

function refusal(name: string, method: string, reason: string): FlowError {
  return new FlowError("resource-write-refused", `Resource "${name}" ${method} refused: ${reason}.`);
}

/**
 * A value a state schema already produced, as the state to store: a private plain-JSON copy, refused
 * (`resource-write-refused`, naming resource `name` and `method`) unless it is a JSON object. For a value
 * parsed once already, e.g. a client create's seed parsed against `{}`: parsing it again would run its
 * transforms twice.
 */
export function acceptState(name: string, method: string, data: unknown): JsonObject {
  if (!isPlainObject(data)) throw refusal(name, method, "the schema did not produce a JSON object");
  refuseNonJson(name, method, data);
  return cloneJson(data as JsonObject);
}
