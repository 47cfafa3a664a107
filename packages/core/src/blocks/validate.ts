/**
 * Definition-time checks shared by the block builders and `defineFlow`. Each throws a `DefinitionError`
 * that names what is wrong and where.
 */
import { DefinitionError } from "../errors.js";
import type { AnyBlock, ResourceMap } from "./block-definition.js";
import { isBlockDefinition } from "./block-definition.js";
import { isResourceDefinition } from "./resource-ref.js";
import { type AnySchema, isZodSchema } from "./schema.js";

/** Path segments and names that appear in URLs: letters, digits, `_`, `.`, `-`. */
export const URL_SAFE_NAME = /^[A-Za-z0-9_.-]+$/;

export function describe(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  return typeof value === "object" ? "an object" : `${typeof value}`;
}

export function assertOptions(where: string, options: unknown): asserts options is Record<string, unknown> {
  if (typeof options !== "object" || options === null || Array.isArray(options)) {
    throw new DefinitionError(`${where}: expected an options object, got ${describe(options)}.`);
  }
}

/** Refuses option keys outside `allowed`: a misspelt option would otherwise be silently ignored. */
export function assertKnownKeys(
  where: string,
  options: Record<string, unknown>,
  allowed: readonly string[],
): void {
  for (const key of Object.keys(options)) {
    if (!allowed.includes(key)) {
      throw new DefinitionError(
        `${where}: "${key}" is not an option here (options: ${allowed.join(", ")}).`,
        {
          option: key,
        },
      );
    }
  }
}

export function assertName(where: string, name: unknown): asserts name is string {
  if (typeof name !== "string" || name.trim() === "") {
    throw new DefinitionError(`${where}: "name" must be a non-empty string, got ${describe(name)}.`);
  }
}

export function optionalSchema(where: string, field: string, value: unknown): AnySchema | undefined {
  if (value === undefined) return undefined;
  if (!isZodSchema(value)) {
    throw new DefinitionError(`${where}: "${field}" must be a zod schema, got ${describe(value)}.`);
  }
  return value;
}

export function optionalString(where: string, field: string, value: unknown): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== "string") {
    throw new DefinitionError(`${where}: "${field}" must be a string, got ${describe(value)}.`);
  }
  return value;
}

export function optionalBoolean(where: string, field: string, value: unknown, fallback: boolean): boolean {
  if (value === undefined) return fallback;
  if (typeof value !== "boolean") {
    throw new DefinitionError(`${where}: "${field}" must be a boolean, got ${describe(value)}.`);
  }
  return value;
}

export function optionalPositiveInteger(where: string, field: string, value: unknown): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== "number" || !Number.isSafeInteger(value) || value < 1) {
    throw new DefinitionError(`${where}: "${field}" must be a positive integer, got ${String(value)}.`);
  }
  return value;
}

export function requireFunction<T>(where: string, field: string, value: unknown): T {
  if (typeof value !== "function") {
    throw new DefinitionError(`${where}: "${field}" must be a function, got ${describe(value)}.`);
  }
  return value as T;
}

export function optionalFunction<T>(where: string, field: string, value: unknown): T | undefined {
  return value === undefined ? undefined : requireFunction<T>(where, field, value);
}

export function requireBlock(where: string, field: string, value: unknown): AnyBlock {
  if (!isBlockDefinition(value)) {
    throw new DefinitionError(
      `${where}: "${field}" must be a block (made with handler, sequencer, router or generator), got ${describe(value)}.`,
    );
  }
  return value;
}

/**
 * Checks a `resources` map (accessor → resource definition) and returns a frozen copy. Accessors appear
 * in URLs (`/resources/:ref`), so they must be URL-safe.
 */
export function normalizeResources(where: string, value: unknown): ResourceMap {
  if (value === undefined) return Object.freeze({});
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new DefinitionError(
      `${where}: "resources" must be an object of accessor → resource, got ${describe(value)}.`,
    );
  }
  const out: Record<string, ResourceMap[string]> = {};
  for (const [accessor, definition] of Object.entries(value)) {
    if (!URL_SAFE_NAME.test(accessor)) {
      throw new DefinitionError(
        `${where}: resource accessor "${accessor}" must be non-empty and use only letters, digits, "_", "." and "-".`,
        { accessor },
      );
    }
    if (!isResourceDefinition(definition)) {
      throw new DefinitionError(
        `${where}: resource "${accessor}" must be a resource definition (defineResource, defineResourceCollection ` +
          `or defineExternalCollection), got ${describe(definition)}.`,
        { accessor },
      );
    }
    out[accessor] = definition;
  }
  return Object.freeze(out);
}
