import { type Fence, FlowError, type RequestRecord } from "@flowrt/core";
import type { DocTable } from "./doc-table.js";
import { KeyedSharedLock } from "./shared-lock.js";

/**
 * Where fenced writes meet claims (see `Fence` in `@flowrt/core`). A fenced write runs under its request's shared
 * lock after reading the request's epoch from its file on disk (not from memory: another process may have opened
 * the folder since and claimed the request, see the README); a change of the request record (a claim, a removal)
 * runs under the exclusive lock. So within one instance no claim lands between a write's check and the write,
 * while writes of one run still run side by side.
 */
export class FenceGate {
  private readonly lock = new KeyedSharedLock();

  constructor(private readonly requests: DocTable<RequestRecord>) {}

  /**
   * Runs `write` when `fence` is absent, or when its request exists and is at an epoch no greater than the
   * fence's; otherwise throws `FlowError` `lease-lost` and runs nothing. Call it under the write's key lock.
   */
  async write<T>(fence: Fence | undefined, write: () => Promise<T>): Promise<T> {
    if (fence === undefined) return write();
    return this.lock.shared(fence.requestId, async () => {
      // One small read per fenced write; only the writes of durable runs carry a fence.
      const record = await this.requests.read(fence.requestId);
      if (record === null) {
        throw new FlowError(
          "lease-lost",
          `store-fs: a write of request "${fence.requestId}" under claim epoch ${fence.epoch} was refused: the request does not exist.`,
        );
      }
      const stored = record.epoch ?? 0;
      if (stored > fence.epoch) {
        throw new FlowError(
          "lease-lost",
          `store-fs: a write of request "${fence.requestId}" under claim epoch ${fence.epoch} was refused: the request was claimed again (epoch ${stored}).`,
        );
      }
      return write();
    });
  }

  /** Runs `change` of request `requestId`'s record while no fenced write of that request is between check and write. */
  change<T>(requestId: string, change: () => Promise<T>): Promise<T> {
    return this.lock.exclusive(requestId, change);
  }
}
