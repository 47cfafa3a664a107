import { FlowError, hasErrorCode } from "@flowrt/core";

/** Throws `request-aborted` when the run's signal has fired; called before every block and step. */
export function throwIfAborted(signal: AbortSignal, before: string): void {
  if (signal.aborted) throw abortedError(before, signal.reason);
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
