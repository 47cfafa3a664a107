/**
 * Zod schema helpers shared by the block and flow definitions: recognising a schema without `instanceof`
 * (an application may hold two copies of zod) and the type-level mapping from optional schemas to the
 * types a block sees.
 */
import type { z } from "zod";
import type { JsonObject } from "../store/contract.js";

/** Any zod schema. */
export type AnySchema = z.ZodType;

/** The parsed type of an optional schema; `TFallback` when there is none. */
export type SchemaOutput<TSchema, TFallback = unknown> = TSchema extends z.ZodType
  ? z.output<TSchema>
  : TFallback;

/** The type a caller supplies for an optional schema (before defaults and transforms); `TFallback` without one. */
export type SchemaInput<TSchema, TFallback = unknown> = TSchema extends z.ZodType
  ? z.input<TSchema>
  : TFallback;

/**
 * The state type a scope or resource handle carries for an optional `stateSchema`. Without a schema, or
 * with one whose output is not a JSON object, the handle is loosely typed as {@link JsonObject}.
 */
export type SchemaState<TSchema> = TSchema extends z.ZodType
  ? z.output<TSchema> extends JsonObject
    ? z.output<TSchema>
    : JsonObject
  : JsonObject;

export type MaybePromise<T> = T | Promise<T>;

/** True for a zod (v4) schema, recognised structurally. */
export function isZodSchema(value: unknown): value is AnySchema {
  return (
    typeof value === "object" &&
    value !== null &&
    "_zod" in value &&
    typeof (value as { safeParse?: unknown }).safeParse === "function"
  );
}

/**
 * The field names of an object schema (`z.object(...)`), or `undefined` when the schema has no static
 * shape (a union, a record, a pipe...). Used to check `expose` lists against the schema.
 */
export function objectShapeKeys(schema: AnySchema): string[] | undefined {
  const shape = (schema as { shape?: unknown }).shape;
  if (typeof shape !== "object" || shape === null) return undefined;
  return Object.keys(shape);
}
