import type { Fence, JsonObject, ScopeAddress, WriteCondition } from "@flowrt/core";
import { FlowError } from "@flowrt/core";

/** Bad input is refused with a clear error before anything touches the disk. */
function invalid(message: string): FlowError {
  return new FlowError("invalid-request", message);
}

export function assertString(value: unknown, name: string): asserts value is string {
  if (typeof value !== "string") throw invalid(`${name} must be a string (got ${describe(value)}).`);
}

export function assertNonEmptyString(value: unknown, name: string): asserts value is string {
  assertString(value, name);
  if (value === "") throw invalid(`${name} must not be empty.`);
}

export function assertAddress(address: unknown): asserts address is ScopeAddress {
  if (typeof address !== "object" || address === null) throw invalid("The scope address must be an object.");
  const { scope, scopeId, bucket } = address as Partial<ScopeAddress>;
  if (scope !== "session" && scope !== "user" && scope !== "org") {
    throw invalid(`The scope must be "session", "user" or "org" (got ${describe(scope)}).`);
  }
  assertString(scopeId, "scopeId");
  assertString(bucket, "bucket");
}

export function assertJsonObject(value: unknown, name: string): asserts value is JsonObject {
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw invalid(`${name} must be a JSON object (got ${describe(value)}).`);
  }
}

export function assertCondition(condition: unknown): asserts condition is WriteCondition {
  const type = (condition as { type?: unknown } | null)?.type;
  if (type === "absent") {
    const cap = (condition as { cap?: unknown }).cap;
    if (cap !== undefined) assertCap(cap);
    return;
  }
  if (type === "any") return;
  if (type === "version") {
    const version = (condition as { version?: unknown }).version;
    if (Number.isInteger(version) && (version as number) >= 0) return;
    throw invalid(`A version condition needs a non-negative integer version (got ${describe(version)}).`);
  }
  throw invalid(`The write condition must be "absent", "version" or "any" (got ${describe(type)}).`);
}

/** A capped create's room: `{ prefix: string, leaf?: boolean, max: <non-negative integer> }`. */
function assertCap(cap: unknown): void {
  const { prefix, leaf, max } = (cap ?? {}) as { prefix?: unknown; leaf?: unknown; max?: unknown };
  if (typeof cap !== "object" || cap === null || typeof prefix !== "string")
    throw invalid(`A write cap needs a string prefix (got ${describe(prefix)}).`);
  if (leaf !== undefined && typeof leaf !== "boolean")
    throw invalid(`A write cap's leaf must be a boolean (got ${describe(leaf)}).`);
  if (!Number.isInteger(max) || (max as number) < 0)
    throw invalid(`A write cap needs a non-negative integer max (got ${describe(max)}).`);
}

/** Whether a write under `condition` may proceed over the key's live version (`null` when absent). */
export function conditionHolds(condition: WriteCondition, liveVersion: number | null): boolean {
  switch (condition.type) {
    case "absent":
      return liveVersion === null;
    case "version":
      return liveVersion === condition.version;
    case "any":
      return true;
  }
}

/** A non-negative integer or undefined; paging arguments are refused as `invalid-pagination`. */
export function assertCount(
  value: unknown,
  name: string,
  code: "invalid-pagination" | "invalid-request" = "invalid-pagination",
): asserts value is number | undefined {
  if (value === undefined) return;
  if (!Number.isSafeInteger(value) || (value as number) < 0) {
    throw new FlowError(code, `${name} must be a non-negative integer (got ${describe(value)}).`);
  }
}

/** A write's fence, when given, is `{ requestId: string, epoch: <non-negative integer> }`. */
export function assertFence(fence: unknown): asserts fence is Fence | undefined {
  if (fence === undefined) return;
  if (typeof fence !== "object" || fence === null)
    throw invalid(`A fence must be an object (got ${describe(fence)}).`);
  const { requestId, epoch } = fence as Partial<Fence>;
  assertString(requestId, "fence.requestId");
  if (!Number.isSafeInteger(epoch) || (epoch as number) < 0)
    throw invalid(`fence.epoch must be a non-negative integer (got ${describe(epoch)}).`);
}

function describe(value: unknown): string {
  if (value === null) return "null";
  if (typeof value === "string") return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value);
  return typeof value;
}

/**
 * A deep copy of a caller's value as the store will keep it (JSON semantics). Cycles and values
 * JSON cannot hold (BigInt) are refused with a clear error instead of a serializer's exception.
 */
export function jsonCopy<T>(value: T, name: string): T {
  let text: string | undefined;
  try {
    text = JSON.stringify(value);
  } catch (cause) {
    throw new FlowError(
      "invalid-request",
      `${name} is not JSON-serializable (${(cause as Error).message}).`,
      {
        cause,
      },
    );
  }
  if (text === undefined) throw invalid(`${name} is not JSON-serializable.`);
  return JSON.parse(text) as T;
}
