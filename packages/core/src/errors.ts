/**
 * The one error catalogue of flowrt. Every error the runtime raises carries a stable `code` from
 * {@link ERROR_CODES}; HTTP statuses are mapped from these codes in exactly one place, the engine's
 * HTTP layer. Errors are branded (see {@link isFlowError}) so that they are recognised even when two
 * copies of `@flowrt/core` are installed and `instanceof` would fail.
 */

/**
 * Every error code flowrt raises, with a one-line meaning. Codes are stable: clients may switch on them.
 * Codes are kebab-case, except `resource_delta_refused`, whose spelling the specification fixes.
 */
export const ERROR_CODES = {
  "invalid-json": "The request body is not valid JSON.",
  "invalid-request": "The request body or query does not have the expected shape.",
  "invalid-input": "An action or block input failed validation.",
  "invalid-output": "A block returned output that failed its output schema.",
  "invalid-pagination": "A list query has a malformed limit, offset or cursor.",
  "invalid-seed-state": "The collection's stateSchema parsed against {} does not yield a valid state.",
  "invalid-key": "A collection key does not match the collection's pattern.",
  "payload-too-large": "The request body exceeds the configured limit.",
  "unsupported-media-type":
    "A cross-site browser request sent a JSON route a body that is not declared application/json.",
  unauthorized: "No principal could be resolved and the flow requires a user.",
  "principal-resolution-failed": "The principal resolver refused the request.",
  forbidden: "The principal does not own the addressed session or request.",
  "operation-not-permitted": "The resource's client config does not grant this operation.",
  "user-binding-mismatch": "The request's user differs from the user the session is bound to.",
  "org-binding-mismatch": "The request's org differs from the org the session is bound to.",
  "not-found": "Nothing is served at this path.",
  "flow-not-found": "No flow with this id is registered on the host.",
  "action-not-found": "The flow has no action with this name.",
  "session-not-found": "No session with this id exists.",
  "request-not-found": "No request with this id exists.",
  "resource-not-found": "The resource does not exist or is not visible to clients.",
  "instance-not-found": "No collection instance exists under this key.",
  "inspector-disabled": "The development inspector is disabled on this host.",
  "method-not-allowed": "The path exists but not for this method.",
  "topic-exists": "A collection item with this topic already exists.",
  "session-exists": "A session with this id already exists.",
  "delete-conflict": "The item's state changed while the delete was applied; retry.",
  "write-conflict": "A guarded write lost its compare-and-swap race too many times.",
  "wrong-instance-session": "The session belongs to another instance of this flow kind.",
  "migration-required": "The session has no recorded owner and the flow kind has several instances.",
  "request-finished": "The request has already finished.",
  "not-retryable": "The request cannot be re-run through the public retry route.",
  "collection-full": "The collection reached maxInstances and its eviction policy is none.",
  resource_delta_refused: "incState or pushState targeted a field of the wrong kind.",
  "resource-write-refused":
    "A state write was refused (schema violation, not a JSON object, or writable: false).",
  "content-write-failed": "The item's state was written but its content could not be.",
  "route-not-declared": "A router selected a route it did not declare.",
  "token-budget-exceeded": "A generator or action used more tokens than its budget allows.",
  "step-limit-exceeded": "A generator reached its step limit.",
  "request-aborted": "The request was aborted.",
  "lease-lost":
    "A durable run's write was refused: another host took its request over after this host's claim lapsed.",
  "host-lost": "The host running this request stopped before it finished, and the request was not durable.",
  "reserved-event-type":
    "A block emitted (ctx.emit) an event type the engine writes itself: request.*, block.*, text.delta, tool.call, tool.result, state_change or resource_change.",
  "webhook-verification-failed": "The webhook delivery's signature did not verify.",
  "webhook-provider-not-configured": "A flow declares a webhook provider that the host did not configure.",
  "webhook-parse-failed": "The webhook delivery's body could not be parsed.",
  "cross-flow-schema-conflict": "Two flows declare incompatible user or org state schemas.",
  "definition-error": "A flow, block or resource definition is invalid.",
  "store-error": "The store failed to complete an operation.",
  "host-not-started": "The host was used before start() or after close().",
  "host-draining":
    "The host is shutting down and takes no new work; another host (or this one, restarted) will.",
  "internal-error": "An unexpected error occurred.",
} as const;

export type ErrorCode = keyof typeof ERROR_CODES;

const FLOW_ERROR_BRAND = Symbol.for("flowrt.error");

export interface FlowErrorOptions {
  /** Whether repeating the same operation may succeed. @default false */
  retryable?: boolean;
  /** Machine-readable details; serialised into problem+json extensions where safe. */
  details?: Record<string, unknown>;
  cause?: unknown;
}

/** The base error of flowrt: a stable `code`, a `retryable` flag and optional `details`. */
export class FlowError extends Error {
  readonly code: ErrorCode;
  readonly retryable: boolean;
  readonly details: Record<string, unknown> | undefined;
  readonly [FLOW_ERROR_BRAND] = true;

  constructor(code: ErrorCode, message: string, options: FlowErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = "FlowError";
    this.code = code;
    this.retryable = options.retryable ?? false;
    this.details = options.details;
  }
}

/** True for any flowrt error, from this or any other installed copy of `@flowrt/core`. */
export function isFlowError(value: unknown): value is FlowError {
  return (
    typeof value === "object" &&
    value !== null &&
    (value as Record<symbol, unknown>)[FLOW_ERROR_BRAND] === true &&
    typeof (value as { code?: unknown }).code === "string"
  );
}

/** True when `value` is a flowrt error with the given code. */
export function hasErrorCode(value: unknown, code: ErrorCode): value is FlowError {
  return isFlowError(value) && value.code === code;
}

/**
 * Thrown by a principal resolver to refuse a request with a chosen HTTP status.
 * @example throw new PrincipalResolutionError("token expired", { status: 401 })
 */
export class PrincipalResolutionError extends FlowError {
  /** HTTP status to answer with. @default 401 */
  readonly status: number;
  constructor(message: string, options: { status?: number; cause?: unknown } = {}) {
    super("principal-resolution-failed", message, { cause: options.cause });
    this.name = "PrincipalResolutionError";
    const status = options.status ?? 401;
    this.status = Number.isInteger(status) && status >= 400 && status <= 599 ? status : 401;
  }
}

export function isPrincipalResolutionError(value: unknown): value is PrincipalResolutionError {
  return hasErrorCode(value, "principal-resolution-failed");
}

/** A request's `userId` differs from the user the session is bound to. */
export class UserBindingMismatchError extends FlowError {
  readonly sessionId: string;
  constructor(sessionId: string, expected: string | undefined, actual: string | undefined) {
    super(
      "user-binding-mismatch",
      `Session "${sessionId}" is bound to another user; create a new session to act as this user.`,
      { details: { sessionId } },
    );
    this.name = "UserBindingMismatchError";
    this.sessionId = sessionId;
    // The user ids are kept off the message so that logs never pair a session with a foreign user id.
    Object.defineProperty(this, "bound", { value: { expected, actual }, enumerable: false });
  }
}

/** A request's `orgId` differs from the org the session is bound to. */
export class OrgBindingMismatchError extends FlowError {
  readonly sessionId: string;
  constructor(sessionId: string, expected: string | undefined, actual: string | undefined) {
    super(
      "org-binding-mismatch",
      `Session "${sessionId}" is bound to another org; create a new session to act in this org.`,
      { details: { sessionId } },
    );
    this.name = "OrgBindingMismatchError";
    this.sessionId = sessionId;
    Object.defineProperty(this, "bound", { value: { expected, actual }, enumerable: false });
  }
}

/** Two flows registered on one host declare the same user/org state field with different types. */
export class CrossFlowSchemaConflictError extends FlowError {
  readonly scope: "user" | "org";
  readonly field: string;
  readonly flows: readonly [string, string];
  constructor(scope: "user" | "org", field: string, existingFlow: string, newFlow: string, reason?: string) {
    super(
      "cross-flow-schema-conflict",
      `${
        reason
          ? `Flows "${existingFlow}" and "${newFlow}" disagree on ${scope} state field "${field}": ${reason}`
          : `Flows "${existingFlow}" and "${newFlow}" declare ${scope} state field "${field}" with different types`
      }. Give the field one type in both flows, rename it in one, or set ` +
        `${scope === "user" ? "isolateUserState" : "isolateOrgState"}: true on one flow.`,
      { details: { scope, field, flows: [existingFlow, newFlow] } },
    );
    this.name = "CrossFlowSchemaConflictError";
    this.scope = scope;
    this.field = field;
    this.flows = [existingFlow, newFlow];
  }
}

/** A definition (resource, collection, block, flow, host wiring) is invalid. Thrown when it is made. */
export class DefinitionError extends FlowError {
  constructor(message: string, details?: Record<string, unknown>) {
    super("definition-error", message, { details });
    this.name = "DefinitionError";
  }
}
