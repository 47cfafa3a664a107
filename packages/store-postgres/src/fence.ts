/**
 * Fenced writes (the contract's `Fence`): a write a durable run makes carries its request and the epoch of the
 * claim it runs under. Each fenced statement in `sql.ts` reads the request's row FOR SHARE in the statement that
 * writes, writes only while the stored epoch is not greater than the fence's, and answers the stored epoch
 * (`fence_epoch`, NULL when the request is gone), so a refusal is told apart from a lost compare-and-swap.
 */
import { type Fence, FlowError } from "@flowrt/core";

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
