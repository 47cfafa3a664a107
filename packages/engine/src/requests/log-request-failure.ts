import type { RequestError } from "@flowrt/core";
import type { HostLogger } from "../logger.js";

/**
 * A failed request, logged once: a failure the record hides (`errorId` set) at `error` with the whole error and its
 * stack under the same `errorId`; a client error (its code and message are on the record) at `info`, without stack.
 */
export function logRequestFailure(
  log: HostLogger,
  about: { id: string; flowId: string; action: string; userId: string; sessionId: string },
  error: unknown,
  stored: RequestError,
): void {
  const fields = {
    requestId: about.id,
    flowId: about.flowId,
    action: about.action,
    userId: about.userId,
    sessionId: about.sessionId,
  };
  if (stored.errorId !== undefined)
    log.error({ ...fields, errorId: stored.errorId, err: error }, "request failed");
  else log.info({ ...fields, code: stored.code, message: stored.message }, "request failed");
}
