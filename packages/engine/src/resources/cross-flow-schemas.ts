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
  warn(message: string): void;
}

/** JSON Schema as `z.toJSONSchema` writes it: a node is an object of keywords. */
type Node = Record<string, unknown>;

/** An object schema's fields: `properties` and which of them `required` names. */
interface Fields {
  readonly properties: Readonly<Record<string, Node>>;
  readonly required: ReadonlySet<string>;
}

/** What the state accepts, as JSON Schema (the input side: a transform's result is not what is stored). */
function jsonSchemaOf(schema: z.ZodType): Node | undefined {
  try {
    return z.toJSONSchema(schema, { io: "input", unrepresentable: "any" }) as Node;
  } catch {
    return undefined;
  }
}

function isNode(value: unknown): value is Node {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The fields of an object schema (`allOf` of object schemas merged); undefined for any other schema. */
function fieldsOf(node: Node): Fields | undefined {
  if (Array.isArray(node.allOf)) {
    const parts = node.allOf.map((part) => (isNode(part) ? fieldsOf(part) : undefined));
    if (parts.some((part) => part === undefined)) return undefined;
    return {
      properties: Object.assign({}, ...parts.map((part) => part!.properties)),
      required: new Set(parts.flatMap((part) => [...part!.required])),
    };
  }
  if (node.type !== "object" || !isNode(node.properties)) return undefined;
  const properties: Record<string, Node> = {};
  for (const [name, field] of Object.entries(node.properties)) properties[name] = isNode(field) ? field : {};
  const required = Array.isArray(node.required) ? node.required.filter((n) => typeof n === "string") : [];
  return { properties, required: new Set(required) };
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

/** Keywords that list alternatives or values in no meaningful order: `enum: ["a","b"]` is `["b","a"]`. */
const UNORDERED = new Set(["enum", "anyOf", "oneOf", "type", "required"]);

/**
 * The schema as a comparable value: without the keywords that are not its type, and with unordered lists
 * sorted. Only keywords are dropped: inside a name map (`properties` …) every key is a name, so a nested field
 * called `title` or `default` keeps its type.
 */
function canonical(node: unknown, names = false): unknown {
  if (Array.isArray(node)) return node.map((item) => canonical(item));
  if (typeof node !== "object" || node === null) return node;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node)) {
    if (names) out[key] = canonical(value);
    else if (NOT_TYPE.has(key)) continue;
    else if (UNORDERED.has(key) && Array.isArray(value))
      out[key] = value
        .map((item) => canonical(item))
        .sort((a, b) => (JSON.stringify(a) < JSON.stringify(b) ? -1 : 1));
    else out[key] = canonical(value, NAME_MAPS.has(key));
  }
  return out;
}

/** What comparing one flow's state schema with another's found. */
interface Comparison {
  /** The first field (dotted path) whose types differ, and why when it is not the type itself. */
  conflict?: { field: string; reason?: string };
  /** Optional fields one side adds: [path, the side that has it]. */
  added: Array<[string, "left" | "right"]>;
}

/**
 * Compares two object schemas field by field, into nested objects (and array items of objects): a field
 * both declare must have one type; a field only one declares must accept absence there (else the other
 * flow's records can never satisfy it), and is then an extension.
 */
function compareFields(left: Fields, right: Fields, path: string, found: Comparison): void {
  for (const [side, from, into] of [
    ["left", left, right],
    ["right", right, left],
  ] as const) {
    for (const name of Object.keys(from.properties)) {
      if (Object.hasOwn(into.properties, name)) continue;
      const field = `${path}${name}`;
      if (from.required.has(name)) {
        found.conflict ??= { field, reason: side };
        return;
      }
      found.added.push([field, side]);
    }
  }
  for (const [name, a] of Object.entries(left.properties)) {
    if (!Object.hasOwn(right.properties, name)) continue;
    compareTypes(a, right.properties[name]!, `${path}${name}`, found);
    if (found.conflict) return;
  }
}

function compareTypes(a: Node, b: Node, field: string, found: Comparison): void {
  const [left, right] = [fieldsOf(a), fieldsOf(b)];
  if (left && right) {
    compareFields(left, right, `${field}.`, found);
    return;
  }
  if (a.type === "array" && b.type === "array" && isNode(a.items) && isNode(b.items)) {
    const rest = (node: Node) => canonical({ ...node, items: undefined });
    if (isDeepStrictEqual(rest(a), rest(b))) {
      compareTypes(a.items, b.items, `${field}[]`, found);
      return;
    }
  }
  if (!isDeepStrictEqual(canonical(a), canonical(b))) found.conflict ??= { field };
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
    const seen: { id: string; fields: Fields }[] = [];
    for (const flow of flows) {
      if (scope === "user" ? flow.isolateUserState : flow.isolateOrgState) continue;
      const schema = flow[scope]?.stateSchema;
      if (schema === undefined) continue;
      const node = jsonSchemaOf(schema);
      const fields = node === undefined ? undefined : fieldsOf(node);
      if (fields === undefined) {
        // Not an object of named fields (a record, a lazy or custom schema): nothing to compare field by field.
        warnings.push(
          `Flow "${flow.id}": its ${scope} state schema has no fields to compare with other flows' (it is not an object schema); the cross-flow check skipped it.`,
        );
        continue;
      }
      for (const other of seen) {
        const found: Comparison = { added: [] };
        compareFields(other.fields, fields, "", found);
        if (found.conflict) {
          const { field, reason } = found.conflict;
          const [has, lacks] = reason === "left" ? [other.id, flow.id] : [flow.id, other.id];
          throw new CrossFlowSchemaConflictError(
            scope,
            field,
            other.id,
            flow.id,
            reason === undefined ? undefined : `required in "${has}" but absent in "${lacks}"`,
          );
        }
        for (const [field, side] of found.added) {
          const [from, into] = side === "left" ? [other.id, flow.id] : [flow.id, other.id];
          warnings.push(
            `Flow "${from}" extends the ${scope} state of flow "${into}" with optional field "${field}".`,
          );
        }
      }
      seen.push({ id: flow.id, fields });
    }
  }
  for (const warning of warnings) logger?.warn(warning);
  return warnings;
}
