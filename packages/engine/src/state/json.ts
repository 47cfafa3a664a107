import type { JsonObject, JsonValue } from "@flowrt/core";

/** Where a value is not JSON: a path and what was found there, or `null` when it is JSON. */
export function findNonJson(value: unknown, path = ""): { path: string; found: string } | null {
  if (value === null || typeof value === "string" || typeof value === "boolean") return null;
  if (typeof value === "number") return Number.isFinite(value) ? null : { path, found: String(value) };
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const bad = findNonJson(value[i], `${path}[${i}]`);
      if (bad) return bad;
    }
    return null;
  }
  if (typeof value === "object") {
    const proto = Object.getPrototypeOf(value);
    if (proto !== Object.prototype && proto !== null)
      return { path, found: proto?.constructor?.name ?? "object" };
    for (const key of Object.keys(value)) {
      const child = (value as Record<string, unknown>)[key];
      if (child === undefined) continue;
      const bad = findNonJson(child, path ? `${path}.${key}` : key);
      if (bad) return bad;
    }
    return null;
  }
  return { path, found: typeof value };
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/**
 * A deep copy that keeps every own key as plain data — `__proto__` and `constructor` included — and
 * drops `undefined` members, as JSON would.
 */
export function cloneJson<T extends JsonValue>(value: T): T {
  if (value === null || typeof value !== "object") return value;
  if (Array.isArray(value)) return value.map((item) => cloneJson(item)) as T;
  const out: JsonObject = {};
  for (const key of Object.keys(value)) {
    const child = (value as JsonObject)[key];
    if (child !== undefined) setOwn(out, key, cloneJson(child));
  }
  return out as T;
}

/**
 * Assigns an own data property even for `__proto__`, which plain assignment would not (it is the one
 * accessor `Object.prototype` has; every other key assigns as an own property of the plain objects this
 * module builds). Plain assignment keeps the object in V8's fast mode, which a `defineProperty` per key
 * does not.
 */
export function setOwn(target: Record<string, unknown>, key: string, value: unknown): void {
  if (key === "__proto__")
    Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
  else target[key] = value;
}

const PROTO_KEY = "__proto__";
const PROTO_STANDIN = "\u0000flowrt:__proto__";

/**
 * Schema libraries drop own `__proto__` keys while parsing (zod does). flowrt treats every field name as
 * data, so the key travels through validation under a stand-in name and is restored afterwards.
 */
export function renameProtoKeys(value: unknown, from = PROTO_KEY, to = PROTO_STANDIN): unknown {
  // Nothing to rename (the usual case): the value goes on as it is, without a copy.
  if (!hasOwnKey(value, from)) return value;
  return renameKeys(value, from, to);
}

/** Whether `key` is an own key of `value` or of any object or array nested in it. */
function hasOwnKey(value: unknown, key: string): boolean {
  if (Array.isArray(value)) return value.some((item) => hasOwnKey(item, key));
  if (typeof value !== "object" || value === null) return false;
  for (const own of Object.keys(value)) {
    if (own === key || hasOwnKey((value as Record<string, unknown>)[own], key)) return true;
  }
  return false;
}

function renameKeys(value: unknown, from: string, to: string): unknown {
  if (Array.isArray(value)) return value.map((item) => renameKeys(item, from, to));
  if (!isPlainObject(value)) return value;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value)) {
    setOwn(out, key === from ? to : key, renameKeys(value[key], from, to));
  }
  return out;
}

export function restoreProtoKeys(value: unknown): unknown {
  return renameProtoKeys(value, PROTO_STANDIN, PROTO_KEY);
}
