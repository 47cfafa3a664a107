import type { RequestRecord } from "@flowrt/core";
import type { PageQuery } from "../../sessions/listing-cursor.js";
import type { HttpContext } from "../context.js";
import { lastEventId, streamResponse } from "../event-stream-response.js";
import { schemaRef } from "../openapi-components.js";
import { httpCaller, queryString, queryValues } from "../request-body.js";
import { jsonAnswer, narrowing, SSE_ANSWER } from "../route-doc.js";
import type { Route } from "../router.js";
import { type HttpRequest, json } from "../types.js";

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

/**
 * A request as a session's request listing shows it: what it ran and how it ended, its error's code only (and
 * `errorId` for a server-side failure; the message, and the input and output, are `GET /requests/:id`'s).
 */
export function requestSummaryView(request: RequestRecord) {
  return {
    requestId: request.id,
    status: request.status,
    action: request.action,
    createdAt: request.createdAt,
    ...(request.startedAt !== undefined ? { startedAt: request.startedAt } : {}),
    ...(request.completedAt !== undefined ? { completedAt: request.completedAt } : {}),
    ...(request.error !== undefined
      ? {
          error:
            request.error.errorId === undefined
              ? { code: request.error.code }
              : { code: request.error.code, errorId: request.error.errorId },
        }
      : {}),
  };
}

/** The page parameters of a listing: `limit` and the opaque `cursor` of the previous page's `nextCursor`. */
export const PAGE_PARAMETERS = [
  {
    name: "limit",
    in: "query",
    description: "Page size, at most 200: a larger value is served as 200 (not refused).",
    schema: { type: "integer", minimum: 1, default: 50 },
  },
  {
    name: "cursor",
    in: "query",
    description:
      "The previous page's `nextCursor` (opaque); absent for the first page. One this listing did not make is 400 invalid-pagination.",
    schema: { type: "string" },
  },
];

/** The page a listing's query asks for (`limit`, `cursor`; each at most once). */
export function pageQuery(req: HttpRequest): PageQuery {
  const limit = queryString(req, "limit");
  const cursor = queryString(req, "cursor");
  return { ...(limit !== undefined ? { limit } : {}), ...(cursor !== undefined ? { cursor } : {}) };
}

/** Requests: the caller's active ones, one request, its event stream, abort and retry. */
export const requestRoutes: Route<HttpContext>[] = [
  {
    method: "GET",
    path: "/active-requests",
    doc: {
      operationId: "listActiveRequests",
      auth: "optional-principal",
      tag: "Requests",
      summary:
        "List the caller's active requests, oldest first, a page at a time (never refused, as the session list)",
      parameters: [narrowing("userId"), ...PAGE_PARAMETERS],
      responses: { 200: jsonAnswer("{ requests, nextCursor }") },
      errors: [400],
    },
    handler: async (req, _params, { host }) => {
      const userId = queryValues(req, "userId");
      const page = await host.listActiveRequestsPage(httpCaller(req), {
        ...(userId !== undefined ? { userId } : {}),
        ...pageQuery(req),
      });
      return json(200, page);
    },
  },
  {
    method: "GET",
    path: "/requests/:requestId",
    doc: {
      operationId: "getRequest",
      auth: "principal",
      tag: "Requests",
      summary: "Request status",
      responses: {
        200: jsonAnswer("The request, with its output once completed", {
          type: "object",
          required: ["request"],
          properties: { request: schemaRef("Request") },
        }),
      },
      errors: [401, 403, 404],
    },
    handler: async (req, { requestId }, { host }) =>
      json(200, { request: requestView(await host.getRequest(requestId!, httpCaller(req))) }),
  },
  {
    method: "GET",
    path: "/requests/:requestId/stream",
    doc: {
      operationId: "streamRequest",
      auth: "principal",
      tag: "Requests",
      summary: "Request event stream (resumes after Last-Event-ID or ?after=)",
      parameters: [
        { name: "after", in: "query", schema: { type: "integer", minimum: 0 } },
        {
          name: "Last-Event-ID",
          in: "header",
          description: "The last event id seen; wins over ?after= when not empty.",
          schema: { type: "integer", minimum: 0 },
        },
      ],
      responses: { 200: SSE_ANSWER },
      errors: [400, 401, 403, 404],
    },
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
    doc: {
      operationId: "abortRequest",
      auth: "principal",
      tag: "Requests",
      summary: "Abort a request",
      responses: { 202: jsonAnswer("{ status }") },
      errors: [401, 403, 404, 409, 415],
    },
    handler: async (req, { requestId }, { host }) => {
      const record = await host.abortRequest(requestId!, httpCaller(req));
      return json(202, { status: record.status });
    },
  },
  {
    method: "POST",
    path: "/requests/:requestId/retry",
    doc: {
      operationId: "retryRequest",
      auth: "principal",
      tag: "Requests",
      summary: "Re-run a request with the same input",
      responses: { 202: jsonAnswer("A new request with the same input", schemaRef("ActionAccepted")) },
      errors: [401, 403, 404, 409, 415, 503],
    },
    handler: async (req, { requestId }, { host }) => {
      const record = await host.retryRequest(requestId!, httpCaller(req));
      return json(202, { requestId: record.id, sessionId: record.sessionId });
    },
  },
];
