import type { RequestEvent } from "@flowrt/core";
import type { Caller, FlowHost } from "@flowrt/engine";
import type { RequestHandlerExtra } from "@modelcontextprotocol/sdk/shared/protocol.js";
import {
  type CallToolRequest,
  type CallToolResult,
  ErrorCode,
  McpError,
  type ServerNotification,
  type ServerRequest,
} from "@modelcontextprotocol/sdk/types.js";
import type { CancellerOf } from "./mcp-caller.js";
import { mcpErrorOf, publicProblem, refusesCaller, toolErrorResult } from "./mcp-errors.js";
import type { ToolCatalog } from "./tool-catalog.js";

export type McpExtra = RequestHandlerExtra<ServerRequest, ServerNotification>;

/** What a progress notification says of an event: its type, and a text delta's text. */
export function progressMessage(event: RequestEvent): string {
  const delta = event.data.delta;
  return event.type === "text.delta" && typeof delta === "string" ? `text.delta: ${delta}` : event.type;
}

const ABORTED = { code: "request-aborted", detail: "The request was aborted." };
const FAILED = { code: "internal-error", detail: "An unexpected error occurred." };

/** The answer of a run that ended: its output as structured content, else its error as an `isError` result. */
function outcome(
  record: { status: string; output?: unknown; error?: { code: string; message: string; errorId?: string } },
  ids: { requestId: string; sessionId: string },
): CallToolResult {
  if (record.status === "completed") {
    const structuredContent = { ...ids, output: record.output ?? null };
    return { structuredContent, content: [{ type: "text", text: JSON.stringify(structuredContent) }] };
  }
  if (record.status === "failed") return toolErrorResult(record.error ?? FAILED);
  return toolErrorResult(ABORTED);
}

/**
 * `tools/call` of an action's tool: `host.invoke` as the HTTP action route calls it (the address, the principal
 * with `source: "mcp"`, the owner of a named session, the input: all the engine's checks, nothing re-implemented
 * here), then the request's events to its end. Each event before the end is a progress notification when the
 * client asked for them (`_meta.progressToken`; `progress` is the event's `seq`); the client's cancellation aborts
 * the request as `POST /requests/:id/abort` would, with the credentials the cancellation came with. A refusal of the caller (401, 403) is a JSON-RPC error; any
 * other refusal, and a run that fails, an `isError` result the model can read (code and message, never an internal
 * error's own message).
 */
export async function callActionTool(
  host: FlowHost,
  catalog: ToolCatalog,
  params: CallToolRequest["params"],
  extra: McpExtra,
  caller: Caller,
  cancellerOf: CancellerOf = () => undefined,
): Promise<CallToolResult> {
  const entry = catalog.get(params.name);
  if (!entry) throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${params.name}`);
  const args = params.arguments ?? {};
  const sessionId = args.sessionId;
  if (sessionId !== undefined && (typeof sessionId !== "string" || sessionId === "")) {
    return toolErrorResult({ code: "invalid-request", detail: '"sessionId" must be a non-empty string.' });
  }
  const fields = { tool: entry.name, flowId: entry.flow.id, action: entry.action };
  let started: Awaited<ReturnType<FlowHost["invoke"]>>;
  try {
    started = await host.invoke(entry.flow.id, entry.action, caller, {
      input: args.input,
      ...(sessionId !== undefined ? { sessionId } : {}),
    });
  } catch (error) {
    const problem = publicProblem(error, host.logger, fields);
    if (refusesCaller(problem) || problem.status >= 500) throw mcpErrorOf(problem);
    return toolErrorResult(problem);
  }
  const { request, session } = started;
  const signal = extra.signal;
  const cancel = () => {
    // With the canceller's own credentials, through the abort route's owner check: a session id alone stops nothing.
    // Refused, already finished (409) or gone: nothing more to do here. The run's own log says how it ended.
    host.abortRequest(request.id, cancellerOf(extra.requestId) ?? caller).catch(() => {});
  };
  if (signal.aborted) cancel();
  else signal.addEventListener("abort", cancel, { once: true });
  const progressToken = extra._meta?.progressToken;
  const ids = { requestId: request.id, sessionId: session.id };
  try {
    for await (const event of host.events(request.id, { signal })) {
      switch (event.type) {
        case "request.completed":
          return outcome({ status: "completed", output: event.data.output }, ids);
        case "request.failed":
          return outcome(
            { status: "failed", error: event.data.error as { code: string; message: string } },
            ids,
          );
        case "request.aborted":
          return outcome({ status: "aborted" }, ids);
        default:
          if (progressToken === undefined) break;
          await extra
            .sendNotification({
              method: "notifications/progress",
              params: { progressToken, progress: event.seq, message: progressMessage(event) },
            })
            // A client gone mid-call: the run goes on, as a request whose stream was closed does.
            .catch(() => {});
      }
    }
  } finally {
    signal.removeEventListener("abort", cancel);
  }
  // A cancelled call (its stream stopped at the abort): the SDK sends no answer to it. Otherwise the stream ended
  // without its terminal event in sight, and the record says how the run ended.
  if (signal.aborted) return toolErrorResult(ABORTED);
  return outcome(await host.getRequest(request.id, caller), ids);
}
