import { type Fence, FlowError } from "@flowrt/core";

/**
 * Checks a write's fence (see `Fence` in `@flowrt/core`): returns when there is none or its claim is still the
 * request's latest, throws `FlowError` `lease-lost` otherwise. A caller runs it before it changes anything and
 * then writes with no `await` in between, so no claim can land between the check and the write.
 */
export type FenceGuard = (fence: Fence | undefined) => void;

/** Throws a `TypeError` for a fence that is not `{ requestId: string, epoch: <non-negative integer> }`. */
function checkFence(fence: Fence): void {
  const ok =
    typeof fence === "object" &&
    fence !== null &&
    typeof fence.requestId === "string" &&
    Number.isInteger(fence.epoch) &&
    fence.epoch >= 0;
  if (!ok) {
    throw new TypeError("store-memory: a fence is { requestId: string, epoch: <non-negative integer> }.");
  }
}

/**
 * A guard over the requests `epochOf` knows: it gives a stored request's epoch (0 before its first claim), or
 * `undefined` when no such request is stored.
 */
export function createFenceGuard(epochOf: (requestId: string) => number | undefined): FenceGuard {
  return (fence) => {
    if (fence === undefined) return;
    checkFence(fence);
    const stored = epochOf(fence.requestId);
    if (stored === undefined) {
      throw new FlowError(
        "lease-lost",
        `store-memory: a write of request "${fence.requestId}" under claim epoch ${fence.epoch} was refused: the request does not exist.`,
      );
    }
    if (stored > fence.epoch) {
      throw new FlowError(
        "lease-lost",
        `store-memory: a write of request "${fence.requestId}" under claim epoch ${fence.epoch} was refused: the request was claimed again (epoch ${stored}).`,
      );
    }
  };
}
