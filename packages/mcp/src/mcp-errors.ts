import { randomUUID } from "node:crypto";
import { type HostLogger, type ProblemDetails, problemFor } from "@flowrt/engine";
import { type CallToolResult, ErrorCode, McpError } from "@modelcontextprotocol/sdk/types.js";

/**
 * JSON-RPC error codes this server answers besides the protocol's own. Refusals of the caller keep their HTTP
 * status as the code (JSON-RPC leaves every code outside -32768…-32000 to the application), so a client reads
 * `MCP error 401: …` as it would read the HTTP API's 401; a resource that is not there is MCP's -32002.
 */
export const MCP_ERROR_CODES = {
  unauthorized: 401,
  forbidden: 403,
  resourceNotFound: -32002,
} as const;

/**
 * The problem (the HTTP API's problem+json body) of a failure, as a client may read it: a client error as it is,
 * a server-side one as its catalogue text under an `errorId`, the whole error logged at `error` under that id.
 */
export function publicProblem(
  error: unknown,
  log: HostLogger,
  fields: Record<string, unknown>,
): ProblemDetails {
  const problem = problemFor(error);
  if (problem.status < 500) return problem;
  const errorId = randomUUID();
  log.error({ ...fields, errorId, err: error }, "mcp call failed");
  return problemFor(error, { errorId });
}

/** The JSON-RPC error of a problem: 401 and 403 as themselves, 404 as "resource not found" on reads, 5xx internal. */
export function mcpErrorOf(problem: ProblemDetails, options: { read?: boolean } = {}): McpError {
  const code =
    problem.status === 401
      ? MCP_ERROR_CODES.unauthorized
      : problem.status === 403
        ? MCP_ERROR_CODES.forbidden
        : problem.status === 404 && options.read
          ? MCP_ERROR_CODES.resourceNotFound
          : problem.status >= 500
            ? ErrorCode.InternalError
            : ErrorCode.InvalidParams;
  return new McpError(code, problem.detail ?? problem.title, { ...problem });
}

/** Whether a problem refuses the caller (401, 403): a protocol error, never a tool result. */
export function refusesCaller(problem: ProblemDetails): boolean {
  return problem.status === 401 || problem.status === 403;
}

/** A tool call that failed for a reason the model can act on (bad input, unknown session): an `isError` result. */
export function toolErrorResult(problem: {
  code: string;
  detail?: string;
  message?: string;
  errorId?: unknown;
}): CallToolResult {
  const said = `${problem.code}: ${problem.detail ?? problem.message ?? ""}`.trim();
  const text = typeof problem.errorId === "string" ? `${said} (errorId ${problem.errorId})` : said;
  return { isError: true, content: [{ type: "text", text }] };
}
