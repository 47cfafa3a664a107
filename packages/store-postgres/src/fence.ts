/**
 * Fenced writes (the contract's `Fence`): a write a durable run makes carries its request and the epoch of the
 * claim it runs under. Each fenced statement in `sql.ts` reads the request's row FOR SHARE in the statement that
 * writes, writes only while the stored epoch is not greater than the fence's, and answers the stored epoch
 * (`fence_epoch`, NULL when the request is gone), so a refusal is told apart from a lost compare-and-swap.
 */
import { type Fence, FlowError, type WriteCondition } from "@flowrt/core";
import type { Queryable } from "./driver.js";

/** The parameters a fenced statement takes after the write's own: the request id, then the epoch. */
export function fenceParams(fence: Fence): unknown[] {
  const ok =
    typeof fence === "object" &&
    fence !== null &&
    typeof fence.requestId === "string" &&
    Number.isSafeInteger(fence.epoch) &&
    fence.epoch >= 0;
  if (!ok)
    throw new TypeError("store-postgres: a fence is { requestId: string, epoch: <non-negative integer> }.");
  return [fence.requestId, fence.epoch];
}

/**
 * Throws `lease-lost` when the statement found no request (`storedEpoch` null) or a newer claim than the fence's;
 * the statement then wrote nothing. Returns quietly when the fence held.
 */
export function checkFence(fence: Fence, storedEpoch: unknown): void {
  if (storedEpoch === null || storedEpoch === undefined) {
    throw new FlowError(
      "lease-lost",
      `Request "${fence.requestId}" no longer exists; a write under its claim epoch ${fence.epoch} is refused.`,
    );
  }
  const stored = Number(storedEpoch);
  if (stored > fence.epoch) {
    throw new FlowError(
      "lease-lost",
      `Request "${fence.requestId}" was claimed again (stored epoch ${stored}); a write under its claim epoch ${fence.epoch} is refused.`,
    );
  }
}

/** One conditional write's statements, by its condition: create-only, at a version, unconditional. */
export interface ConditionalStatements {
  absent: string;
  version: string;
  any: string;
}

/**
 * A compare-and-swap write of a state row (scope state or a resource's): the statement for its condition, and with a
 * fence its fenced form (`fenced`), checked in the same statement. The new version, or `null` when the condition did
 * not hold; `lease-lost` when the fence did not.
 */
export async function conditionalWrite(
  db: Queryable,
  statements: { plain: ConditionalStatements; fenced: ConditionalStatements },
  params: unknown[],
  condition: WriteCondition,
  fence: Fence | undefined,
): Promise<number | null> {
  const set = fence === undefined ? statements.plain : statements.fenced;
  const args = condition.type === "version" ? [...params, condition.version] : params;
  const text =
    condition.type === "absent" ? set.absent : condition.type === "version" ? set.version : set.any;
  const { rows } = await db.query<{ fence_epoch?: unknown; version: unknown }>(
    text,
    fence === undefined ? args : [...args, ...fenceParams(fence)],
  );
  if (fence !== undefined) checkFence(fence, rows[0]?.fence_epoch);
  const version = rows[0]?.version;
  return version === null || version === undefined ? null : Number(version);
}
