import { FlowError, type JsonObject, type JsonValue } from "@flowrt/core";
import { cloneJson, setOwn } from "./json.js";

function describeType(value: unknown): string {
  if (Array.isArray(value)) return "array";
  return typeof value;
}

function refused(message: string, field: string): FlowError {
  return new FlowError("resource_delta_refused", message, { retryable: false, details: { field } });
}

/**
 * Applies `incState` deltas to a copy of `current`. All fields or none: any wrong-typed target, any
 * non-finite delta or result refuses the whole call. An absent or `null` field counts as 0.
 */
export function applyIncrements(
  name: string,
  current: JsonObject,
  deltas: Record<string, unknown>,
): JsonObject {
  const next = cloneJson(current);
  for (const field of Object.keys(deltas)) {
    const delta = deltas[field];
    if (delta === undefined) continue;
    if (typeof delta !== "number" || !Number.isFinite(delta)) {
      throw refused(
        `Resource "${name}" incState delta for "${field}" is not a finite number (got ${describeType(delta)})`,
        field,
      );
    }
    const target = Object.hasOwn(current, field) ? current[field] : undefined;
    if (target !== undefined && target !== null && typeof target !== "number") {
      throw refused(
        `Resource "${name}" incState target "${field}" is not a number (got ${describeType(target)})`,
        field,
      );
    }
    const result = ((target as number | null | undefined) ?? 0) + delta;
    if (!Number.isFinite(result)) {
      throw refused(`Resource "${name}" incState on "${field}" would produce a non-finite result`, field);
    }
    setOwn(next, field, result);
  }
  return next;
}

/** Appends `element` to a copy of the array at `field`; an absent or `null` field counts as `[]`. */
export function applyPush(name: string, current: JsonObject, field: string, element: JsonValue): JsonObject {
  const target = Object.hasOwn(current, field) ? current[field] : undefined;
  if (target !== undefined && target !== null && !Array.isArray(target)) {
    throw refused(
      `Resource "${name}" pushState target "${field}" is not an array (got ${describeType(target)})`,
      field,
    );
  }
  const next = cloneJson(current);
  setOwn(next, field, [
    ...((target as JsonValue[] | null | undefined) ?? []).map((v) => cloneJson(v)),
    cloneJson(element),
  ]);
  return next;
}

/** Shallow merge that treats every key of `partial` as data (`__proto__` included). */
export function applyPatch(current: JsonObject, partial: Record<string, unknown>): JsonObject {
  const next = cloneJson(current);
  for (const key of Object.keys(partial)) {
    const value = partial[key];
    if (value === undefined) continue;
    setOwn(next, key, cloneJson(value as JsonValue));
  }
  return next;
}
