import type { JsonObject, JsonValue } from "@flowrt/core";

/**
 * `base` with `patch` merged in one level deep: each key of `patch` replaces the key of `base`, and a key set to
 * `null` removes it (a key whose value is `undefined` is left alone, as JSON would drop it). Returns a new object;
 * `base` is not changed. A `__proto__` key is an ordinary key here, never a prototype.
 */
export function mergeMetadata(base: JsonObject, patch: { [key: string]: JsonValue | null }): JsonObject {
  const merged: JsonObject = {};
  for (const key of Object.keys(base)) set(merged, key, base[key]!);
  for (const key of Object.keys(patch)) {
    const value = patch[key];
    if (value === undefined) continue;
    if (value === null) delete merged[key];
    else set(merged, key, value);
  }
  return merged;
}

function set(target: JsonObject, key: string, value: JsonValue): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}
