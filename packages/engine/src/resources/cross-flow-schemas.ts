import { isDeepStrictEqual } from "node:util";
import { CrossFlowSchemaConflictError } from "@flowrt/core";
import { z } from "zod";

/** What the check reads of a flow (a `FlowDefinition` fits as is). */
export interface SchemaFlow {
  readonly id: string;
  readonly isolateUserState: boolean;
  readonly isolateOrgState: boolean;
  readonly user?: { readonly stateSchema?: z.ZodType | undefined } | undefined;
  readonly org?: { readonly stateSchema?: z.ZodType | undefined } | undefined;
}

export interface SchemaWarningLogger {
  warn(message: string, data?: Record<string, unknown>): void;
}

type Shape = Record<string, z.ZodType>;

function shapeOf(schema: z.ZodType | undefined): Shape | undefined {
  const shape = (schema as { shape?: unknown } | undefined)?.shape;
  return typeof shape === "object" && shape !== null ? (shape as Shape) : undefined;
}

// Defaults, descriptions and optionality are not the field's type: two flows may differ in them.
const NOT_TYPE = new Set([
  "default",
  "description",
  "title",
  "examples",
  "$schema",
  "readOnly",
  "deprecated",
]);

/** JSON Schema keywords whose value maps names (of properties, definitions) to schemas. */
const NAME_MAPS = new Set(["properties", "patternProperties", "$defs", "definitions", "dependentSchemas"]);

/**
 * The schema without the keywords that are not its type. Only keywords are dropped: inside a name map
 * (`properties` …) every key is a name, so a nested field called `title` or `default` keeps its type.
 */
function strip(node: unknown, names = false): unknown {
  if (Array.isArray(node)) return node.map((item) => strip(item));
  if (typeof node !== "object" || node === null) return node;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node)) {
    if (names) out[key] = strip(value);
    else if (!NOT_TYPE.has(key)) out[key] = strip(value, NAME_MAPS.has(key));
  }
  return out;
}

/** A field's type as JSON Schema (what it accepts), for structural comparison. */
function typeOf(field: z.ZodType): unknown {
  try {
    return strip(z.toJSONSchema(field, { io: "input", unrepresentable: "any" }));
  } catch {
    return { unrepresentable: field._zod.def.type };
  }
}

function acceptsAbsent(field: z.ZodType): boolean {
  return field.safeParse(undefined).success;
}

/**
 * The cross-flow schema check, run at registration over every flow of a host (in registration order).
 * For user and org state: identical schemas merge; a schema that adds fields which accept absence
 * (optional or defaulted) merges with a warning; the same field with another type throws
 * {@link CrossFlowSchemaConflictError} naming the field and both flows. A field one flow requires and the
 * other lacks is also a conflict (the other flow's records can never satisfy it). Flows with
 * `isolateUserState`/`isolateOrgState` are left out of that scope's check. The check has no side effects:
 * a registry that runs it before adding a flow stays unchanged when it throws.
 * @returns the warnings, also given to `logger.warn`.
 */
export function checkCrossFlowSchemas(flows: readonly SchemaFlow[], logger?: SchemaWarningLogger): string[] {
  const warnings: string[] = [];
  for (const scope of ["user", "org"] as const) {
    // field → the first flow that declared it and its type
    const known = new Map<string, { flow: string; type: unknown }>();
    const flowsSeen: { id: string; shape: Shape }[] = [];
    for (const flow of flows) {
      if (scope === "user" ? flow.isolateUserState : flow.isolateOrgState) continue;
      const shape = shapeOf(flow[scope]?.stateSchema);
      if (shape === undefined) continue;
      for (const [name, field] of Object.entries(shape)) {
        const type = typeOf(field);
        const earlier = known.get(name);
        if (earlier === undefined) continue;
        if (!isDeepStrictEqual(earlier.type, type))
          throw new CrossFlowSchemaConflictError(scope, name, earlier.flow, flow.id);
      }
      for (const other of flowsSeen) {
        for (const [added, from, into] of [
          [shape, flow.id, other],
          [other.shape, other.id, { id: flow.id, shape }],
        ] as const) {
          for (const [name, field] of Object.entries(added)) {
            if (Object.hasOwn(into.shape, name)) continue;
            if (!acceptsAbsent(field)) {
              throw new CrossFlowSchemaConflictError(
                scope,
                name,
                other.id,
                flow.id,
                `required in "${from}" but absent in "${into.id}"`,
              );
            }
            warnings.push(
              `Flow "${from}" extends the ${scope} state of flow "${into.id}" with optional field "${name}".`,
            );
          }
        }
      }
      for (const [name, field] of Object.entries(shape))
        if (!known.has(name)) known.set(name, { flow: flow.id, type: typeOf(field) });
      flowsSeen.push({ id: flow.id, shape });
    }
  }
  for (const warning of warnings) logger?.warn(warning);
  return warnings;
}
