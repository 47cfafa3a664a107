import { FlowError, type JsonObject, type RequestRecord, type SessionRecord } from "@flowrt/core";
import type { FlowHost } from "../host/flow-host.js";
import { describeError } from "../host/logger.js";
import { openApiDocument } from "./openapi.js";
import { problemFor, statusForError } from "./problem.js";
import { readBody } from "./read-body.js";
import {
  DEFAULT_BODY_LIMIT,
  httpCaller,
  optionalString,
  parseObjectBody,
  queryString,
  queryValues,
  refuseCrossSiteNonJson,
} from "./request-body.js";
import { resourceRoutes } from "./resource-routes.js";
import { type Route, RouteTable } from "./router.js";
import { SSE_HEADERS, sseStream } from "./sse.js";
import { type HttpRequest, type HttpResponse, json } from "./types.js";
import { webhookRoute } from "./webhook-route.js";

export interface HttpHandlerOptions {
  /** Largest accepted body in bytes; larger ones get 413. @default 1 MiB */
  bodyLimit?: number;
  /** How often an idle event stream sends a `: ping` comment. @default 15_000 */
  heartbeatMs?: number;
}

export interface HttpContext {
  host: FlowHost;
  bodyLimit: number;
  heartbeatMs: number;
}

export type HttpHandler = (request: HttpRequest) => Promise<HttpResponse>;

export function sessionView(session: SessionRecord) {
  return {
    id: session.id,
    flowId: session.flowId,
    flowKind: session.flowKind,
    userId: session.userId,
    ...(session.orgId !== undefined ? { orgId: session.orgId } : {}),
    ...(session.parentSessionId !== undefined ? { parentSessionId: session.parentSessionId } : {}),
    ...(session.title !== undefined ? { title: session.title } : {}),
    metadata: session.metadata,
    createdAt: session.createdAt,
  };
}

/**
 * The architecture's request view, plus the principal it ran as (`userId`, `orgId`): the specification's
 * request record "carries `userId`".
 */
export function requestView(request: RequestRecord) {
  return {
    id: request.id,
    sessionId: request.sessionId,
    flowId: request.flowId,
    action: request.action,
    status: request.status,
    userId: request.userId,
    ...(request.orgId !== undefined ? { orgId: request.orgId } : {}),
    ...(request.output !== undefined ? { output: request.output } : {}),
    ...(request.error !== undefined ? { error: request.error } : {}),
    createdAt: request.createdAt,
    ...(request.completedAt !== undefined ? { completedAt: request.completedAt } : {}),
    metadata: request.metadata,
  };
}

/** The quality `Accept` gives a media type (its own range only; `q` defaults to 1); 0 when not named. */
function acceptQuality(accept: string, mediaType: string): number {
  let quality = 0;
  for (const range of accept.split(",")) {
    const [type, ...params] = range.split(";");
    if (type?.trim().toLowerCase() !== mediaType) continue;
    const q = params.map((param) => param.trim().match(/^q=([\d.]+)$/i)?.[1]).find((v) => v !== undefined);
    const value = q === undefined ? 1 : Number(q);
    if (Number.isFinite(value)) quality = Math.max(quality, Math.min(value, 1));
  }
  return quality;
}

/** Methods that only read: a page on another site may send them, and they change nothing. */
const SAFE_METHODS: ReadonlySet<string> = new Set(["GET", "HEAD", "OPTIONS"]);

/**
 * Where the API is served, as this request reached it: its full path without the route's own part (an
 * application's mount prefix included: `/v1/api/flows`). Undefined when the two do not line up.
 */
function servedAt(request: HttpRequest): string | undefined {
  const pathname = request.url.split("?")[0] ?? "";
  return pathname.endsWith(request.path)
    ? pathname.slice(0, pathname.length - request.path.length)
    : undefined;
}

/** `Accept` names `text/event-stream` with a quality above 0, and not below that of `application/json`. */
function wantsEventStream(request: HttpRequest): boolean {
  const header = request.headers.accept;
  const accept = Array.isArray(header) ? header.join(",") : (header ?? "");
  if (!accept.toLowerCase().includes("text/event-stream")) return false;
  const stream = acceptQuality(accept, "text/event-stream");
  return stream > 0 && stream >= acceptQuality(accept, "application/json");
}

function lastEventId(request: HttpRequest): number {
  const header = request.headers["last-event-id"];
  const given = Array.isArray(header) ? header[0] : header;
  // An empty header (a client that has seen nothing yet) says nothing: `?after=` still applies.
  const raw = given !== undefined && given !== "" ? given : queryString(request, "after");
  if (raw === undefined || raw === "") return 0;
  if (!/^\d{1,15}$/.test(raw)) {
    throw new FlowError("invalid-request", "Last-Event-ID (or ?after=) must be a non-negative integer.", {
      details: { field: "after" },
    });
  }
  return Number(raw);
}

function streamResponse(
  ctx: HttpContext,
  requestId: string,
  request: HttpRequest,
  afterSeq: number,
  status = 200,
) {
  const signal = request.signal;
  return {
    status,
    headers: { ...SSE_HEADERS },
    stream: sseStream(
      ctx.host.events(requestId, { afterSeq, ...(signal ? { signal } : {}) }),
      ctx.heartbeatMs,
      signal,
    ),
  } satisfies HttpResponse;
}

const coreRoutes: Route<HttpContext>[] = [
  {
    method: "GET",
    path: "/",
    handler: async (_req, _params, { host }) =>
      json(200, {
        flows: host.registry.flows.map((flow) => ({
          flowId: flow.id,
          kind: flow.kind,
          actions: Object.keys(flow.definition.actions),
          webhooks: Object.keys(flow.definition.webhooks),
          requiresAuth: host.hasResolver(flow),
        })),
      }),
  },
  {
    method: "GET",
    path: "/openapi.json",
    handler: async (req, _params, { host }) => json(200, openApiDocument(host, servedAt(req))),
  },
  {
    method: "GET",
    path: "/sessions",
    handler: async (req, _params, { host }) => {
      // Never refused: a repeated userId/flowId narrows (a row matches every value), it is no 400.
      const userId = queryValues(req, "userId");
      const flowId = queryValues(req, "flowId");
      const sessions = await host.listSessions(httpCaller(req), {
        ...(userId !== undefined ? { userId } : {}),
        ...(flowId !== undefined ? { flowId } : {}),
      });
      return json(200, { sessions: sessions.map(sessionView) });
    },
  },
  {
    method: "GET",
    path: "/active-requests",
    handler: async (req, _params, { host }) => {
      const userId = queryValues(req, "userId");
      const requests = await host.listActiveRequests(httpCaller(req), userId !== undefined ? { userId } : {});
      return json(200, { requests });
    },
  },
  {
    method: "GET",
    path: "/sessions/:sessionId",
    handler: async (req, { sessionId }, { host }) =>
      json(200, { session: sessionView(await host.getSession(sessionId!, httpCaller(req))) }),
  },
  {
    method: "GET",
    path: "/sessions/:sessionId/children",
    handler: async (req, { sessionId }, { host }) => {
      const children = await host.listChildren(sessionId!, httpCaller(req));
      return json(200, { sessions: children.map(sessionView) });
    },
  },
  {
    method: "GET",
    path: "/sessions/:sessionId/manifest",
    handler: async (_req, { sessionId }, { host }) => json(200, await host.manifest(sessionId!)),
  },
  {
    method: "GET",
    path: "/sessions/:sessionId/state",
    handler: async (req, { sessionId }, { host }) =>
      json(200, await host.snapshot(sessionId!, httpCaller(req))),
  },
  {
    method: "GET",
    path: "/sessions/:sessionId/debug",
    handler: async (req, { sessionId }, { host }) =>
      json(200, await host.inspect(sessionId!, httpCaller(req))),
  },
  {
    method: "POST",
    path: "/:flowId/sessions",
    handler: async (req, { flowId }, { host }) => {
      const body = parseObjectBody(req);
      const metadata = body.metadata;
      if (
        metadata !== undefined &&
        (typeof metadata !== "object" || metadata === null || Array.isArray(metadata))
      ) {
        throw new FlowError("invalid-request", '"metadata" must be an object.', {
          details: { field: "metadata" },
        });
      }
      const sessionId = optionalString(body, "sessionId");
      const title = optionalString(body, "title");
      const session = await host.createSession(flowId!, httpCaller(req), {
        ...(sessionId !== undefined ? { sessionId } : {}),
        ...(title !== undefined ? { title } : {}),
        ...(metadata !== undefined ? { metadata: metadata as JsonObject } : {}),
        userId: body.userId,
        orgId: body.orgId,
      });
      return json(201, { session: sessionView(session) });
    },
  },
  {
    method: "POST",
    path: "/:flowId/actions/:action",
    handler: async (req, { flowId, action }, ctx) => {
      const body = parseObjectBody(req);
      const sessionId = optionalString(body, "sessionId");
      const { request, session } = await ctx.host.invoke(flowId!, action!, httpCaller(req, body), {
        input: body.input,
        ...(sessionId !== undefined ? { sessionId } : {}),
        userId: body.userId,
        orgId: body.orgId,
      });
      if (wantsEventStream(req)) {
        const response = streamResponse(ctx, request.id, req, 0, 200);
        response.headers["x-request-id"] = request.id;
        response.headers["x-session-id"] = session.id;
        return response;
      }
      return json(202, { requestId: request.id, sessionId: session.id });
    },
  },
  {
    method: "GET",
    path: "/requests/:requestId",
    handler: async (req, { requestId }, { host }) =>
      json(200, { request: requestView(await host.getRequest(requestId!, httpCaller(req))) }),
  },
  {
    method: "GET",
    path: "/requests/:requestId/stream",
    handler: async (req, { requestId }, ctx) => {
      // The owner first (401/403/404 for an addressed route), then the resume point.
      await ctx.host.getRequest(requestId!, httpCaller(req));
      const afterSeq = lastEventId(req);
      return streamResponse(ctx, requestId!, req, afterSeq);
    },
  },
  {
    method: "POST",
    path: "/requests/:requestId/abort",
    handler: async (req, { requestId }, { host }) => {
      const record = await host.abortRequest(requestId!, httpCaller(req));
      return json(202, { status: record.status });
    },
  },
  {
    method: "POST",
    path: "/requests/:requestId/retry",
    handler: async (req, { requestId }, { host }) => {
      const record = await host.retryRequest(requestId!, httpCaller(req));
      return json(202, { requestId: record.id, sessionId: record.sessionId });
    },
  },
];

/** The `application/problem+json` answer for any thrown value (a generic 500 for what carries no code). */
export function problemResponse(error: unknown): HttpResponse {
  const problem = problemFor(error);
  return { status: problem.status, headers: { "content-type": "application/problem+json" }, body: problem };
}

/**
 * The transport-neutral HTTP API of a host: a route table over plain requests and responses. Every
 * error becomes `application/problem+json` with a catalogue `code`; nothing a handler throws escapes.
 */
export function createHttpHandler(host: FlowHost, options: HttpHandlerOptions = {}): HttpHandler {
  const context: HttpContext = {
    host,
    bodyLimit: options.bodyLimit ?? DEFAULT_BODY_LIMIT,
    heartbeatMs: options.heartbeatMs ?? 15_000,
  };
  const table = new RouteTable<HttpContext>([...coreRoutes, ...resourceRoutes, webhookRoute]);
  return async (request) => {
    try {
      // The one place the body limit is held, whether the transport read the bytes or hands the stream on.
      if (request.rawBody !== undefined) await readBody(request, context.bodyLimit);
      else if (request.body !== undefined) request.rawBody = await readBody(request, context.bodyLimit);
      // An application that mounted a host without `await host.start()` gets it started by the first request.
      if (!host.started) await host.ensureStarted();
      const found = table.match(request.method.toUpperCase(), request.path);
      if (!found) throw new FlowError("not-found", `Nothing is served at ${request.method} ${request.path}.`);
      if ("route" in found && found.route !== webhookRoute && !SAFE_METHODS.has(found.route.method))
        refuseCrossSiteNonJson(request);
      if ("allowed" in found) {
        // HEAD is served wherever GET is, and OPTIONS anywhere a route is: answered here, with the list.
        const allowed = [...found.allowed];
        if (allowed.includes("GET")) allowed.push("HEAD");
        allowed.push("OPTIONS");
        const allow = allowed.join(", ");
        if (request.method.toUpperCase() === "OPTIONS") return { status: 204, headers: { allow } };
        const response = problemResponse(
          new FlowError("method-not-allowed", `${request.method} is not allowed here.`, {
            details: { allowed },
          }),
        );
        response.headers.allow = allow;
        return response;
      }
      return await found.route.handler(request, found.params, context);
    } catch (error) {
      if (statusForError(error) >= 500) {
        host.logger.error("request handler failed", {
          method: request.method,
          path: request.path,
          error: describeError(error),
        });
      }
      return problemResponse(error);
    }
  };
}
