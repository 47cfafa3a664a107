import { FlowError, hasErrorCode } from "@flowrt/core";
import type { BlockRun } from "./block-run.js";

/**
 * Throws `request-aborted` when the run has been aborted; called before every block and step. Asks
 * `run.aborted` when the run has it, so a signal made on first read is not made for this.
 */
export function throwIfRunAborted(run: Pick<BlockRun, "signal" | "aborted">, before: string): void {
  if (run.aborted ?? run.signal.aborted) throw abortedError(before, run.signal.reason);
}

export function abortedError(before: string, reason?: unknown): FlowError {
  return new FlowError("request-aborted", `The request was aborted before ${before} could finish.`, {
    cause: reason,
  });
}

/** True when `error` stems from the run being aborted (which `rescue` must not swallow). */
export function isAbort(error: unknown, signal: AbortSignal): boolean {
  return signal.aborted || hasErrorCode(error, "request-aborted");
}
