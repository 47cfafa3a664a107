import { z } from "zod";
import { isZodSchema } from "../blocks/schema.js";
import type { ScopeKind } from "../store/contract.js";
import { describeValue, listOf, refuseOption, resourceLabel } from "./definition-issue.js";
import { isSingleResourceDefinition } from "./guards.js";
import type { AnySingleResourceDefinition } from "./types.js";

const SCOPES: readonly ScopeKind[] = ["session", "user", "org"];

/** The schema used when `stateSchema` is omitted: any JSON object. */
export const defaultStateSchema = (): z.ZodObject<{}, z.core.$catchall<z.ZodJSONSchema>> =>
  z.object({}).catchall(z.json());

/**
 * Reads and checks one define function's options, refusing with messages that name the resource, the
 * option and the fix. One instance per definition.
 */
export class OptionReader {
  readonly label: string;
  readonly name: string | undefined;
  private readonly options: Record<string, unknown>;

  constructor(
    fn: string,
    options: unknown,
    allowed: readonly string[],
    misplaced: Readonly<Record<string, string>>,
    patternKey?: "pattern",
  ) {
    if (typeof options !== "object" || options === null || Array.isArray(options)) {
      refuseOption(
        "Resource",
        "options",
        `${fn} needs an options object (got ${describeValue(options)})`,
        `Call ${fn}({ scope: "session", ... })`,
      );
    }
    this.options = options as Record<string, unknown>;
    const name = this.options.name;
    if (name !== undefined && (typeof name !== "string" || name.length === 0)) {
      refuseOption(
        "Resource",
        "name",
        `name must be a non-empty string (got ${describeValue(name)})`,
        "Set name to a display name or leave it out",
      );
    }
    this.name = name as string | undefined;
    const pattern = patternKey === undefined ? undefined : this.options[patternKey];
    this.label = resourceLabel(
      this.name,
      typeof pattern === "string" && pattern !== "" ? pattern : undefined,
    );
    for (const key of Object.keys(this.options)) {
      if (allowed.includes(key)) continue;
      const hint = misplaced[key];
      this.refuse(
        key,
        `${key} is not an option of ${fn}`,
        hint ?? `Remove ${key}; ${fn} accepts ${listOf(allowed, false)}`,
      );
    }
  }

  refuse(option: string, problem: string, fix: string): never {
    return refuseOption(this.label, option, problem, fix);
  }

  has(key: string): boolean {
    return this.options[key] !== undefined;
  }

  raw(key: string): unknown {
    return this.options[key];
  }

  /** Definition-time error 1. */
  scope(): ScopeKind {
    const scope = this.options.scope;
    if (scope === undefined) this.refuse("scope", "scope is missing", `Set scope to ${listOf(SCOPES)}`);
    if (!SCOPES.includes(scope as ScopeKind)) {
      this.refuse("scope", `scope ${describeValue(scope)} is not a scope`, `Set scope to ${listOf(SCOPES)}`);
    }
    return scope as ScopeKind;
  }

  /** A zod object schema, or the permissive default. */
  stateSchema(): z.ZodObject {
    const schema = this.options.stateSchema;
    if (schema === undefined) return defaultStateSchema();
    if (!isZodObject(schema)) {
      this.refuse(
        "stateSchema",
        `stateSchema must be a zod object schema (got ${describeValue(schema)})`,
        "Pass stateSchema: z.object({ ... }) from zod 4, or leave it out to accept any JSON object",
      );
    }
    return schema;
  }

  boolean(key: string, fallback: boolean): boolean {
    const value = this.options[key];
    if (value === undefined) return fallback;
    if (typeof value !== "boolean")
      this.refuse(
        key,
        `${key} must be a boolean (got ${describeValue(value)})`,
        `Set ${key} to true or false`,
      );
    return value;
  }

  string(key: string): string | undefined {
    const value = this.options[key];
    if (value === undefined) return undefined;
    if (typeof value !== "string")
      this.refuse(key, `${key} must be a string (got ${describeValue(value)})`, `Set ${key} to a string`);
    return value;
  }

  nonEmptyString(key: string): string | undefined {
    const value = this.string(key);
    if (value === "")
      this.refuse(key, `${key} is an empty string`, `Set ${key} to a non-empty string or leave it out`);
    return value;
  }

  oneOf<T extends string>(key: string, values: readonly T[], fallback: T): T {
    const value = this.options[key];
    if (value === undefined) return fallback;
    if (!values.includes(value as T)) {
      this.refuse(
        key,
        `${key} ${describeValue(value)} is not one of ${listOf(values)}`,
        `Set ${key} to ${listOf(values)}`,
      );
    }
    return value as T;
  }

  func<F extends (...args: any[]) => unknown>(key: string, example: string): F | undefined {
    const value = this.options[key];
    if (value === undefined) return undefined;
    if (typeof value !== "function")
      this.refuse(key, `${key} must be a function (got ${describeValue(value)})`, `Pass ${key}: ${example}`);
    return value as F;
  }

  /** An integer within bounds, or `undefined` when unset. */
  integer(key: string, min: number, fix: string): number | undefined {
    const value = this.options[key];
    if (value === undefined) return undefined;
    if (typeof value !== "number" || !Number.isSafeInteger(value) || value < min) {
      this.refuse(key, `${key} must be an integer ≥ ${min} (got ${describeValue(value)})`, fix);
    }
    return value;
  }

  /** Definition-time error 7: `flowIsolation` needs user/org scope, `sharedToLineage` session scope. */
  isolation(scope: ScopeKind): { flowIsolation: boolean; sharedToLineage: boolean } {
    const flowIsolation = this.boolean("flowIsolation", false);
    const sharedToLineage = this.boolean("sharedToLineage", false);
    if (flowIsolation && scope === "session") {
      this.refuse(
        "flowIsolation",
        "flowIsolation is set on a session-scoped resource; a session already belongs to one flow",
        'Remove flowIsolation, or use scope "user" or "org"',
      );
    }
    if (sharedToLineage && scope !== "session") {
      this.refuse(
        "sharedToLineage",
        `sharedToLineage is set on ${scope === "org" ? "an" : "a"} ${scope}-scoped resource; only session scope has a lineage`,
        `Remove sharedToLineage (${scope === "org" ? "an" : "a"} ${scope}-scoped resource is already shared by every session of that ${scope}), or use scope "session"`,
      );
    }
    return { flowIsolation, sharedToLineage };
  }

  /** `render`, `contentTemplate`, `contentTemplateRef`: content is rendered one way at most. */
  rendering(allowRef: boolean): {
    render: ((content: string, state: any) => string) | undefined;
    contentTemplate: string | undefined;
    contentTemplateRef: AnySingleResourceDefinition | string | undefined;
  } {
    const render = this.func<(content: string, state: any) => string>("render", "(content, state) => string");
    const contentTemplate = this.string("contentTemplate");
    let contentTemplateRef: AnySingleResourceDefinition | string | undefined;
    if (allowRef) {
      const ref = this.options.contentTemplateRef;
      if (ref !== undefined && !(typeof ref === "string" && ref !== "") && !isSingleResourceDefinition(ref)) {
        this.refuse(
          "contentTemplateRef",
          `contentTemplateRef must be a single resource definition or its accessor name (got ${describeValue(ref)})`,
          "Pass the defineResource(...) result that holds the template, or its accessor name",
        );
      }
      contentTemplateRef = ref as AnySingleResourceDefinition | string | undefined;
    }
    const set = [
      render && "render",
      contentTemplate !== undefined && "contentTemplate",
      contentTemplateRef !== undefined && "contentTemplateRef",
    ].filter((s): s is string => typeof s === "string");
    if (set.length > 1) {
      this.refuse(
        set[1]!,
        `${set.join(" and ")} are both set; content is rendered one way`,
        `Keep one of ${listOf(set, false)}`,
      );
    }
    return { render, contentTemplate, contentTemplateRef };
  }
}

/** A zod 4 object schema, recognised structurally (as every schema option is) so that two installed copies of zod both work. */
function isZodObject(value: unknown): value is z.ZodObject {
  // `def` is read defensively: a look-alike with `_zod` but no `def` is simply not a schema.
  return isZodSchema(value) && (value._zod as { def?: { type?: unknown } }).def?.type === "object";
}

/**
 * The field names `expose`/`exclude` are checked against, or `undefined` when the schema keeps unknown fields
 * (loose object or catchall), where any name may be a field.
 */
export function declaredFields(schema: z.ZodObject): ReadonlySet<string> | undefined {
  const catchall = (schema._zod.def as { catchall?: { _zod?: { def?: { type?: unknown } } } }).catchall;
  if (catchall !== undefined && catchall._zod?.def?.type !== "never") return undefined;
  return new Set(Object.keys(schema.shape));
}
