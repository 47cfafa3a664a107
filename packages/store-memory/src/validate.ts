import type { JsonObject, ListOptions, ScopeAddress, WriteCap, WriteCondition } from "@flowrt/core";

const SCOPES = new Set(["session", "user", "org"]);

/** Bad arguments are programming errors in the caller: refuse them with a message that names them. */
export function checkAddress(address: ScopeAddress): void {
  if (
    typeof address !== "object" ||
    address === null ||
    !SCOPES.has(address.scope) ||
    typeof address.scopeId !== "string" ||
    typeof address.bucket !== "string"
  ) {
    throw new TypeError(
      "store-memory: a scope address is { scope: 'session' | 'user' | 'org', scopeId: string, bucket: string }.",
    );
  }
}

export function checkKey(key: string): void {
  if (typeof key !== "string") throw new TypeError("store-memory: a resource key must be a string.");
}

/** The prefix of a list or count (`""` when not given). */
export function checkPrefix(prefix: string | undefined): string {
  if (prefix === undefined) return "";
  if (typeof prefix !== "string")
    throw new TypeError("store-memory: a list or count prefix must be a string.");
  return prefix;
}

/** The key a keyset page starts after (`undefined` when not given). */
export function checkAfter(after: string | undefined): string | undefined {
  if (after !== undefined && typeof after !== "string")
    throw new TypeError("store-memory: a list's after must be a key string.");
  return after;
}

export function checkCondition(condition: WriteCondition): void {
  const ok =
    typeof condition === "object" &&
    condition !== null &&
    (condition.type === "absent" ||
      condition.type === "any" ||
      (condition.type === "version" && Number.isInteger(condition.version)));
  if (!ok) {
    throw new TypeError(
      "store-memory: a write condition is { type: 'absent' }, { type: 'any' } or { type: 'version', version: <integer> }.",
    );
  }
  if (condition.type === "absent" && condition.cap !== undefined) checkCap(condition.cap);
}

/** A capped create's room: `{ prefix: string, leaf?: boolean, max: <non-negative integer> }`. */
function checkCap(cap: WriteCap): void {
  const ok =
    typeof cap === "object" &&
    cap !== null &&
    typeof cap.prefix === "string" &&
    (cap.leaf === undefined || typeof cap.leaf === "boolean") &&
    Number.isInteger(cap.max) &&
    cap.max >= 0;
  if (!ok) {
    throw new TypeError(
      "store-memory: a write cap is { prefix: string, leaf?: boolean, max: <non-negative integer> }.",
    );
  }
}

/** Offset and limit as non-negative integers (limit `Infinity` when unbounded). */
export function pageWindow(options: Pick<ListOptions, "offset" | "limit">): {
  offset: number;
  limit: number;
} {
  const offset = options.offset ?? 0;
  const limit = options.limit ?? Number.POSITIVE_INFINITY;
  if (!Number.isInteger(offset) || offset < 0) {
    throw new RangeError(`store-memory: offset must be a non-negative integer (got ${String(offset)}).`);
  }
  if (limit !== Number.POSITIVE_INFINITY && (!Number.isInteger(limit) || limit < 0)) {
    throw new RangeError(`store-memory: limit must be a non-negative integer (got ${String(limit)}).`);
  }
  return { offset, limit };
}

/** Whether a compare-and-swap condition admits a write over `live` (null when absent or deleted). */
export function admits(condition: WriteCondition, live: { version: number } | null): boolean {
  if (condition.type === "any") return true;
  if (condition.type === "absent") return live === null;
  return live !== null && live.version === condition.version;
}

/** JSON text of a state, refusing what JSON cannot hold (functions, symbols, non-finite numbers). */
export function toJsonText(value: JsonObject, what: string): string {
  return JSON.stringify(value, (_key, v: unknown) => {
    if (typeof v === "function" || typeof v === "symbol" || (typeof v === "number" && !Number.isFinite(v))) {
      throw new TypeError(
        `store-memory: ${what} holds ${typeof v === "number" ? String(v) : `a ${typeof v}`}, which is not JSON.`,
      );
    }
    return v;
  });
}
