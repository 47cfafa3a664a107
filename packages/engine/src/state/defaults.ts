import type { JsonObject, JsonValue } from "@flowrt/core";
import type { z } from "zod";
import { isPlainObject, setOwn } from "./json.js";

/** A schema's top-level fields that fill themselves when absent (a `.default()`), by schema. */
const defaultedBySchema = new WeakMap<object, readonly (readonly [string, z.ZodType])[]>();

function defaultedFields(schema: z.ZodType): readonly (readonly [string, z.ZodType])[] {
  let fields = defaultedBySchema.get(schema);
  if (fields === undefined) {
    const shape = (schema as { shape?: unknown }).shape;
    const found: (readonly [string, z.ZodType])[] = [];
    if (isPlainObject(shape)) {
      for (const [key, field] of Object.entries(shape as Record<string, z.ZodType>)) {
        const absent = field.safeParse(undefined);
        if (absent.success && absent.data !== undefined) found.push([key, field]);
      }
    }
    fields = Object.freeze(found);
    defaultedBySchema.set(schema, fields);
  }
  return fields;
}

/**
 * A stored state as its schema reads it today: a top-level field the schema has added since the record was
 * written, with a default, takes that default (what the next write would store anyway). Fields present are
 * left as stored; `state` is returned itself when nothing is missing, else a shallow copy.
 */
export function withSchemaDefaults(schema: z.ZodType | undefined, state: JsonObject): JsonObject {
  if (schema === undefined) return state;
  let filled: JsonObject | undefined;
  for (const [key, field] of defaultedFields(schema)) {
    if (Object.hasOwn(state, key)) continue;
    // Parsed again each time: a default made by a function (`.default(() => [])`) is a fresh value per read.
    const absent = field.safeParse(undefined);
    if (!absent.success || absent.data === undefined) continue;
    filled ??= { ...state };
    setOwn(filled, key, absent.data as JsonValue);
  }
  return filled ?? state;
}
