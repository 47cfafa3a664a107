import { ERROR_CODES, type ErrorCode, isFlowError, isPrincipalResolutionError } from "@flowrt/core";

/**
 * The one place where error codes become HTTP statuses. Everything else in flowrt (stores, verifiers,
 * blocks, the resource engine) raises coded errors and never knows about HTTP.
 */
export const STATUS_BY_CODE: Record<ErrorCode, number> = {
  "invalid-json": 400,
  "invalid-request": 400,
  "invalid-input": 400,
  "invalid-output": 500,
  "invalid-pagination": 400,
  "invalid-seed-state": 400,
  "invalid-key": 400,
  "payload-too-large": 413,
  "unsupported-media-type": 415,
  unauthorized: 401,
  "principal-resolution-failed": 401,
  forbidden: 403,
  "operation-not-permitted": 403,
  "user-binding-mismatch": 403,
  "org-binding-mismatch": 403,
  "not-found": 404,
  "flow-not-found": 404,
  "action-not-found": 404,
  "session-not-found": 404,
  "request-not-found": 404,
  "resource-not-found": 404,
  "instance-not-found": 404,
  "inspector-disabled": 404,
  "method-not-allowed": 405,
  "topic-exists": 409,
  "session-exists": 409,
  "delete-conflict": 409,
  "write-conflict": 409,
  "wrong-instance-session": 409,
  "migration-required": 409,
  "request-finished": 409,
  "not-retryable": 409,
  "collection-full": 409,
  resource_delta_refused: 422,
  "resource-write-refused": 422,
  "content-write-failed": 500,
  "route-not-declared": 500,
  "token-budget-exceeded": 422,
  "step-limit-exceeded": 422,
  "request-aborted": 409,
  "lease-lost": 409,
  "host-lost": 500,
  "reserved-event-type": 500,
  "webhook-verification-failed": 401,
  "webhook-provider-not-configured": 500,
  "webhook-parse-failed": 400,
  "cross-flow-schema-conflict": 500,
  "definition-error": 500,
  "store-error": 503,
  "host-not-started": 503,
  "host-draining": 503,
  "internal-error": 500,
};

export interface ProblemDetails {
  type: "about:blank";
  title: string;
  status: number;
  code: string;
  detail: string;
  [extension: string]: unknown;
}

const TITLES: Record<number, string> = {
  400: "Bad Request",
  401: "Unauthorized",
  403: "Forbidden",
  404: "Not Found",
  405: "Method Not Allowed",
  409: "Conflict",
  413: "Content Too Large",
  422: "Unprocessable Content",
  500: "Internal Server Error",
  503: "Service Unavailable",
};

/** Extensions a problem may carry from an error's details; anything else stays server-side. */
const PUBLIC_DETAILS = new Set(["field", "retryable", "limit", "allowed", "sessionId", "requestId"]);

export function statusForError(error: unknown): number {
  if (isPrincipalResolutionError(error)) return error.status;
  if (isFlowError(error)) return STATUS_BY_CODE[error.code] ?? 500;
  return 500;
}

/**
 * An `application/problem+json` body for any thrown value. Unknown errors become a generic 500 whose
 * message and stack never reach the client.
 */
export interface ProblemOptions {
  /** The id the full error was logged under: an `errorId` extension on a server-side failure's problem. */
  errorId?: string;
  /** A server-side failure's own message as the detail (the host's `exposeErrors`, development only). */
  expose?: boolean;
}

export function problemFor(error: unknown, options: ProblemOptions = {}): ProblemDetails {
  const status = statusForError(error);
  if (!isFlowError(error) || status >= 500) {
    // A server-side failure's own message may name what the client must not see (a store's file path, a
    // database's words): the detail is the catalogue's text for its code; the message goes to the log, under the
    // `errorId` the problem carries.
    const code = isFlowError(error) ? error.code : "internal-error";
    const detail =
      options.expose === true
        ? error instanceof Error
          ? error.message
          : String(error)
        : ((ERROR_CODES as Record<string, string>)[code] ?? ERROR_CODES["internal-error"]);
    const problem: ProblemDetails = {
      type: "about:blank",
      title: TITLES[status] ?? "Error",
      status,
      code,
      detail,
    };
    if (isFlowError(error) && error.retryable) problem.retryable = true;
    if (options.errorId !== undefined) problem.errorId = options.errorId;
    return problem;
  }
  const problem: ProblemDetails = {
    type: "about:blank",
    title: TITLES[status] ?? "Error",
    status,
    code: error.code,
    detail: error.message,
  };
  for (const [key, value] of Object.entries(error.details ?? {})) {
    if (PUBLIC_DETAILS.has(key)) problem[key] = value;
  }
  if (error.retryable) problem.retryable = true;
  return problem;
}
