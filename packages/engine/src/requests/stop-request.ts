import { hasErrorCode, type RequestRecord } from "@flowrt/core";
import type { RequestRunner } from "./request-runner.js";

/**
 * Aborts a request (as `RequestRunner.abort`; one that has already ended, or is gone, is left as it is) and settles once
 * no run of it writes any more, so that its records can be removed. A run here is awaited until it has settled,
 * for at most a lease: past that (a block that ignores `ctx.signal`), its writes are refused since the abort
 * anyway, and only one already handed to the store before it could still land. A durable run elsewhere is
 * fenced (its writes are refused once its request is gone); a non-durable one elsewhere sees the abort at its
 * next claim renewal, so its claim is waited out (at most a lease).
 */
export async function stopRequest(runner: RequestRunner, hostId: string, requestId: string): Promise<void> {
  let before: RequestRecord | undefined;
  try {
    await runner.abortWith(requestId, (record) => {
      before = record;
    });
  } catch (error) {
    if (!hasErrorCode(error, "request-finished") && !hasErrorCode(error, "request-not-found")) throw error;
  }
  await atMost(runner.whenSettled(requestId), runner.leaseMs);
  const claim = before?.claim;
  if (before?.durable === false && claim !== undefined && claim.hostId !== hostId) {
    await atMost(undefined, Math.min(claim.until - Date.now(), runner.leaseMs));
  }
}

/** Settles when `promise` does, or after `ms` (at once when `ms` is not positive), whichever comes first. */
function atMost(promise: Promise<void> | undefined, ms: number): Promise<void> {
  if (ms <= 0) return Promise.resolve();
  let timer: NodeJS.Timeout | undefined;
  const elapsed = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, ms);
  });
  if (promise === undefined) return elapsed;
  return Promise.race([promise, elapsed]).finally(() => clearTimeout(timer));
}
