import { z } from "zod";

type AnySchema = z.ZodType;

/** A JSON Schema as the OpenAPI document holds it. */
export type JsonSchema = Record<string, unknown>;

/**
 * A block's zod schema as OpenAPI 3.1 schemas (JSON Schema 2020-12), through zod's own `z.toJSONSchema`: `io:
 * "input"` for what a caller sends (defaults optional, before transforms), `"output"` for what a run answers.
 * `name` is the component the schema becomes: its `$defs` (recursive and registered schemas) become components
 * named `<name>.<def>`, and its `$ref`s are rewritten to them, since `#` in the document is the document.
 */
export function componentSchemas(
  schema: AnySchema,
  io: "input" | "output",
  name: string,
  what: string,
): Record<string, JsonSchema> {
  let converted: JsonSchema;
  try {
    converted = z.toJSONSchema(schema, { io, unrepresentable: "throw", cycles: "ref" }) as JsonSchema;
  } catch {
    // A date, a bigint, a custom type, a transform's output...: zod has no JSON Schema for it. The document still
    // describes the operation, with an unconstrained schema that says why.
    return {
      [name]: {
        description: `${what}: its zod schema has no JSON Schema form (z.toJSONSchema refused it), so any JSON value is shown; the host still validates it.`,
      },
    };
  }
  const { $schema: _dialect, $defs, ...root } = converted;
  const components: Record<string, JsonSchema> = { [name]: retarget(root, name) as JsonSchema };
  for (const [def, body] of Object.entries(($defs ?? {}) as Record<string, JsonSchema>))
    components[defName(name, def)] = retarget(body, name) as JsonSchema;
  return components;
}

/**
 * The component of one of a converted schema's `$defs`: `<name>.<id>` for a schema registered with an id
 * (`.meta({ id: "Tag" })`), `<name>.schema0` for what zod numbers itself (`__schema0`, a recursive schema).
 */
function defName(name: string, def: string): string {
  return `${name}.${def.replace(/^_+/, "").replace(/[^A-Za-z0-9._-]/g, "_")}`;
}

/** `$ref`s of a converted schema pointed at the components its root and `$defs` became. */
function retarget(value: unknown, name: string): unknown {
  if (Array.isArray(value)) return value.map((item) => retarget(item, name));
  if (typeof value !== "object" || value === null) return value;
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    if (key === "$ref" && typeof item === "string") {
      out[key] =
        item === "#"
          ? `#/components/schemas/${name}`
          : item.startsWith("#/$defs/")
            ? `#/components/schemas/${defName(name, decodeURIComponent(item.slice("#/$defs/".length)))}`
            : item;
    } else {
      out[key] = retarget(item, name);
    }
  }
  return out;
}

/**
 * Whether a caller may leave the value out: the schema is `.optional()` or has a default (zod marks both on
 * `_zod.optin`, as it does for the fields of an object it does not require).
 */
export function acceptsAbsent(schema: AnySchema): boolean {
  return (schema as { _zod?: { optin?: string } })._zod?.optin !== undefined;
}

/** A name part of an operation or component: `add-note` → `AddNote`, `notebook` → `Notebook`. */
export function pascal(name: string): string {
  return name
    .split(/[-_.]+/)
    .filter((part) => part !== "")
    .map((part) => part[0]!.toUpperCase() + part.slice(1))
    .join("");
}
