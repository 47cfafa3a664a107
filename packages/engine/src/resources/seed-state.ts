import { FlowError, type JsonObject } from "@flowrt/core";
import type { z } from "zod";
import { isPlainObject } from "../state/json.js";

/**
 * A client create's initial state: the collection's `stateSchema` parsed against `{}` (routing rule 6).
 * Anything but a valid, plain-JSON object is `invalid-seed-state` (400) naming the field, before anything
 * is written: a required field without a default, and equally a default that is not JSON (a `Date`,
 * `NaN`, a `bigint`), which no store could hold.
 */
export function seedState(ref: string, schema: z.ZodType): JsonObject {
  const seed = schema.safeParse({});
  if (!seed.success) {
    const issue = seed.error.issues[0];
    const field = issue?.path.join(".") || "(state)";
    throw invalidSeed(
      ref,
      field,
      `fails at field "${field}" (${issue?.message ?? "invalid"}); give the field a default`,
    );
  }
  if (!isPlainObject(seed.data)) {
    throw invalidSeed(ref, "(state)", "does not yield a JSON object; make stateSchema an object schema");
  }
  const bad = nonJsonField(seed.data, [], new Set());
  if (bad !== undefined) {
    const field = bad.path.join(".");
    throw invalidSeed(
      ref,
      field,
      `yields ${bad.found} at field "${field}", which is not JSON; give the field a JSON default (a string, finite number, boolean, null, array or plain object)`,
    );
  }
  return seed.data as JsonObject;
}

function invalidSeed(ref: string, field: string, problem: string): FlowError {
  return new FlowError(
    "invalid-seed-state",
    `Resource "${ref}" cannot be created by clients: its stateSchema parsed against {} ${problem}.`,
    { details: { resource: ref, field } },
  );
}

/**
 * The first value inside `value` that is not plain JSON, with its path in the form of a zod issue path
 * (`tags.0`), as the `field` of `invalid-seed-state` names it. `undefined` members are skipped (JSON
 * drops them); `ancestors` catches a default that contains itself.
 */
function nonJsonField(
  value: unknown,
  path: string[],
  ancestors: Set<object>,
): { path: string[]; found: string } | undefined {
  if (value === null || typeof value === "string" || typeof value === "boolean") return undefined;
  if (typeof value === "number") return Number.isFinite(value) ? undefined : { path, found: String(value) };
  if (typeof value !== "object")
    return { path, found: value === undefined ? "undefined" : `a ${typeof value}` };
  if (ancestors.has(value)) return { path, found: "a circular reference" };
  if (!Array.isArray(value) && !isPlainObject(value)) {
    return { path, found: Object.getPrototypeOf(value)?.constructor?.name ?? "an object" };
  }
  ancestors.add(value);
  const entries = Array.isArray(value)
    ? Array.from(value, (item, i) => [String(i), item] as const)
    : Object.entries(value);
  for (const [key, child] of entries) {
    if (child === undefined && !Array.isArray(value)) continue;
    const bad = nonJsonField(child, [...path, key], ancestors);
    if (bad) return bad;
  }
  ancestors.delete(value);
  return undefined;
}
