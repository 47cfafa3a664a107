import { randomUUID } from "node:crypto";
import type { Caller, FlowHost } from "@flowrt/engine";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { isJSONRPCNotification } from "@modelcontextprotocol/sdk/types.js";
import { createMcpServer } from "./create-mcp-server.js";
import { type CancellerOf, httpMcpCaller } from "./mcp-caller.js";
import type { McpServerOptions } from "./mcp-options.js";
import type { ToolCatalog } from "./tool-catalog.js";

/** Options of the Streamable HTTP transport. */
export interface McpHttpOptions extends McpServerOptions {
  /**
   * An MCP session nobody has sent a request on for this long is closed (its next request is 404, and the client
   * initializes again). Timers are unref'd: they never keep a process alive.
   * @default 1800000 (30 minutes)
   */
  sessionIdleMs?: number;
  /**
   * The most MCP sessions open at once; an `initialize` past it is answered 503 (`Retry-After`) rather than
   * growing without bound.
   * @default 10000
   */
  maxSessions?: number;
  /** `Host` header values accepted (DNS rebinding protection, on when this or `allowedOrigins` is given). */
  allowedHosts?: string[];
  /** `Origin` header values accepted (DNS rebinding protection, on when this or `allowedHosts` is given). */
  allowedOrigins?: string[];
}

interface OpenSession {
  transport: WebStandardStreamableHTTPServerTransport;
  idle: NodeJS.Timeout | undefined;
}

const jsonRpcError = (status: number, message: string, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify({ jsonrpc: "2.0", error: { code: -32000, message }, id: null }), {
    status,
    headers: { "content-type": "application/json", ...headers },
  });

/**
 * Keeps who sent each `notifications/cancelled` (the caller of the HTTP request that carried it) for the call it
 * names, just before the SDK aborts that call, so the abort runs with the canceller's credentials. An entry lives
 * until the call's abort reads it, or a minute for a cancellation of no call in flight.
 */
function rememberCancellers(
  transport: WebStandardStreamableHTTPServerTransport,
  cancellers: Map<string | number, Caller>,
) {
  const deliver = transport.onmessage;
  transport.onmessage = (message, extra) => {
    if (isJSONRPCNotification(message) && message.method === "notifications/cancelled") {
      const requestId = (message.params as { requestId?: unknown } | undefined)?.requestId;
      if (typeof requestId === "string" || typeof requestId === "number") {
        const caller = httpMcpCaller(extra?.requestInfo);
        cancellers.set(requestId, caller);
        setTimeout(() => {
          if (cancellers.get(requestId) === caller) cancellers.delete(requestId);
        }, 60_000).unref();
      }
    }
    deliver?.(message, extra);
  };
}

/**
 * The MCP sessions of one host's Streamable HTTP endpoint, in this process: each an SDK transport and server,
 * found by its `Mcp-Session-Id`. Sessions live in memory, so several hosts behind one load balancer need it to
 * send a session's requests to the host that opened it (sticky on the `Mcp-Session-Id` header). A session id only
 * routes messages: every request resolves its own principal from its own headers.
 */
export class McpHttpSessions {
  private readonly open = new Map<string, OpenSession>();
  private readonly idleMs: number;
  private readonly maxSessions: number;

  constructor(
    private readonly host: FlowHost,
    private readonly catalog: ToolCatalog,
    private readonly options: McpHttpOptions = {},
  ) {
    this.idleMs = options.sessionIdleMs ?? 30 * 60_000;
    this.maxSessions = options.maxSessions ?? 10_000;
  }

  /** Answers one HTTP request to the endpoint (POST messages, GET the server's stream, DELETE ends a session). */
  async handle(request: Request): Promise<Response> {
    const sessionId = request.headers.get("mcp-session-id");
    if (sessionId !== null) {
      const session = this.open.get(sessionId);
      // The transport's own answer for a session it does not know (MCP: the client initializes again).
      if (!session) return jsonRpcError(404, "Session not found");
      this.touch(sessionId, session);
      return session.transport.handleRequest(request);
    }
    if (request.method !== "POST") return jsonRpcError(400, "Bad Request: Mcp-Session-Id header is required");
    if (this.open.size >= this.maxSessions) {
      return jsonRpcError(503, "Too many open MCP sessions; try again later.", { "retry-after": "60" });
    }
    // A new transport answers only an `initialize` (anything else is its 400), and is kept once it has one.
    const transport = this.newTransport();
    const cancellers = new Map<string | number, Caller>();
    const cancellerOf: CancellerOf = (requestId) => {
      const caller = cancellers.get(requestId);
      cancellers.delete(requestId);
      return caller;
    };
    await createMcpServer(this.host, this.catalog, httpMcpCaller, this.options, cancellerOf).connect(
      transport,
    );
    rememberCancellers(transport, cancellers);
    return transport.handleRequest(request);
  }

  private newTransport(): WebStandardStreamableHTTPServerTransport {
    const { allowedHosts, allowedOrigins } = this.options;
    const transport: WebStandardStreamableHTTPServerTransport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => {
        const session: OpenSession = { transport, idle: undefined };
        this.open.set(id, session);
        this.touch(id, session);
      },
      onsessionclosed: (id) => this.forget(id),
      ...(allowedHosts || allowedOrigins
        ? {
            enableDnsRebindingProtection: true,
            ...(allowedHosts ? { allowedHosts } : {}),
            ...(allowedOrigins ? { allowedOrigins } : {}),
          }
        : {}),
    });
    transport.onclose = () => {
      if (transport.sessionId !== undefined) this.forget(transport.sessionId);
    };
    return transport;
  }

  private touch(id: string, session: OpenSession): void {
    clearTimeout(session.idle);
    if (!(this.idleMs > 0 && Number.isFinite(this.idleMs))) return;
    session.idle = setTimeout(() => {
      this.forget(id);
      session.transport.close().catch(() => {});
    }, this.idleMs);
    session.idle.unref();
  }

  private forget(id: string): void {
    const session = this.open.get(id);
    if (!session) return;
    clearTimeout(session.idle);
    this.open.delete(id);
  }
}
