/**
 * A registered symbol rather than `instanceof`, because an application can end up with two copies of
 * `@flowrt/client` (for instance one bundled into a library), and each has its own class.
 */
const FLOW_CLIENT_ERROR_BRAND: unique symbol = Symbol.for("flowrt.client-error") as never;

/** Codes the client itself uses when the server gave no `application/problem+json` code. */
export type ClientErrorCode =
  /** The server answered with a status but no problem+json body (a proxy page, plain text). */
  | "unexpected-response"
  /** A 2xx answer whose body is not the JSON (or event stream) the route promises. */
  | "invalid-response"
  /** `fetch` failed (DNS, refused connection, reset) and, for streams, every reconnect failed too. */
  | "network-error";

export interface FlowClientErrorInit {
  status: number;
  code: string;
  title: string;
  detail: string;
  /** The whole problem+json body, extensions included (`field`, `retryable`, …); absent for non-JSON bodies. */
  problem?: Record<string, unknown>;
  cause?: unknown;
}

/**
 * Thrown for every failed call: a non-2xx answer (with `status`, `code`, `title`, `detail` taken from the
 * problem+json body), an unusable body, or a network failure (`status` 0, `code` `network-error`).
 * Aborting a call through its `signal` rejects with the platform's `AbortError` instead.
 */
export class FlowClientError extends Error {
  readonly [FLOW_CLIENT_ERROR_BRAND] = true;
  override readonly name = "FlowClientError";
  /** HTTP status, or 0 when no answer arrived. */
  readonly status: number;
  /** A stable kebab-case code from the server's catalogue (e.g. `session-not-found`), or a {@link ClientErrorCode}. */
  readonly code: string;
  readonly title: string;
  readonly detail: string;
  readonly problem: Record<string, unknown> | undefined;

  constructor(init: FlowClientErrorInit) {
    super(init.detail || init.title, init.cause === undefined ? undefined : { cause: init.cause });
    this.status = init.status;
    this.code = init.code;
    this.title = init.title;
    this.detail = init.detail;
    this.problem = init.problem;
  }
}

/** Recognises a {@link FlowClientError} from any copy of this package. */
export function isFlowClientError(value: unknown): value is FlowClientError {
  return (
    typeof value === "object" &&
    value !== null &&
    (value as Record<symbol, unknown>)[FLOW_CLIENT_ERROR_BRAND] === true &&
    typeof (value as { code?: unknown }).code === "string"
  );
}

/** Longest piece of a non-JSON body kept as `detail`; error pages can be large. */
const MAX_DETAIL = 500;

function statusTitle(response: Response): string {
  return response.statusText || `HTTP ${response.status}`;
}

/**
 * Reads a failed response into a {@link FlowClientError}. A problem+json (or JSON with a string `code`)
 * body supplies the fields; anything else falls back to the status line and the start of the body text.
 */
export async function errorFromResponse(response: Response): Promise<FlowClientError> {
  let text = "";
  try {
    text = await response.text();
  } catch {
    // The body could not be read (connection dropped); the status line still says what happened.
  }
  let parsed: unknown;
  try {
    parsed = text === "" ? undefined : JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  if (typeof parsed === "object" && parsed !== null && !Array.isArray(parsed)) {
    const problem = parsed as Record<string, unknown>;
    if (typeof problem.code === "string") {
      return new FlowClientError({
        status: response.status,
        code: problem.code,
        title: typeof problem.title === "string" ? problem.title : statusTitle(response),
        detail: typeof problem.detail === "string" ? problem.detail : "",
        problem,
      });
    }
  }
  const detail = text.trim().slice(0, MAX_DETAIL);
  return new FlowClientError({
    status: response.status,
    code: "unexpected-response",
    title: statusTitle(response),
    detail: detail || `The server answered ${response.status} without a problem+json body.`,
  });
}

export function isAbortError(error: unknown): boolean {
  return typeof error === "object" && error !== null && (error as { name?: unknown }).name === "AbortError";
}

export function networkError(error: unknown): FlowClientError {
  const message = error instanceof Error ? error.message : String(error);
  return new FlowClientError({
    status: 0,
    code: "network-error",
    title: "Network error",
    detail: message,
    cause: error,
  });
}
