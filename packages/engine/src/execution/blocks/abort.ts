import { FlowError, hasErrorCode } from "@flowrt/core";
import type { BlockRun } from "./block-run.js";

/**
 * Whether the run has been aborted; checked before every block and step (then `abortedError`). Asks
 * `run.aborted` when the run has it, so a signal made on first read is not made for this.
 */
export function runAborted(run: Pick<BlockRun, "signal" | "aborted">): boolean {
  return run.aborted ?? run.signal.aborted;
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
