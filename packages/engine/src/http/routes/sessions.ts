import { FlowError, type JsonObject, type SessionRecord } from "@flowrt/core";
import type { FlowHost } from "../../host.js";
import { MAX_SESSION_METADATA_BYTES, MAX_SESSION_TITLE_LENGTH } from "../../sessions/session-patch.js";
import type { HttpContext } from "../context.js";
import { schemaRef } from "../openapi-components.js";
import { pascal } from "../openapi-schemas.js";
import { httpCaller, optionalString, parseObjectBody, queryValues } from "../request-body.js";
import {
  ANY_OBJECT,
  jsonAnswer,
  jsonBody,
  narrowing,
  type RouteOperation,
  type UniqueOperationId,
} from "../route-doc.js";
import type { Route } from "../router.js";
import { json } from "../types.js";
import { PAGE_PARAMETERS, pageQuery, requestSummaryView } from "./requests.js";

/** A session as the API shows it. */
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

/** `{ session }`, as `GET`, `PATCH` and `POST` answer one (the `Session` component is `sessionView`). */
const ONE_SESSION = { type: "object", required: ["session"], properties: { session: schemaRef("Session") } };
const SESSIONS = { type: "array", items: schemaRef("Session") };

/** The body of `PATCH /sessions/:id` (see `sessions/session-patch.ts` for its limits). */
const SESSION_CHANGE_SCHEMA = {
  type: "object",
  additionalProperties: false,
  properties: {
    title: {
      type: ["string", "null"],
      maxLength: MAX_SESSION_TITLE_LENGTH,
      description: "The new title; null removes it.",
    },
    metadata: {
      ...ANY_OBJECT,
      description: `Merged into the stored metadata one level deep; a key set to null is removed. At most ${MAX_SESSION_METADATA_BYTES} bytes of JSON once merged.`,
    },
  },
};

const count = { type: "integer", minimum: 0 };

/** What `DELETE /sessions/:id` removed. */
const REMOVAL_SCHEMA = {
  type: "object",
  required: ["sessions", "requests", "events", "states", "resources", "contents"],
  properties: {
    sessions: count,
    requests: count,
    events: count,
    states: count,
    resources: count,
    contents: count,
  },
};

/** The body of `POST /:flowId/sessions`; `userId` and `orgId` only where no resolver governs the flow. */
function sessionCreateSchema(bodyIdentity: boolean) {
  return {
    type: "object",
    properties: {
      sessionId: {
        type: "string",
        description: "Its id; a new one when absent (409 session-exists if taken).",
      },
      title: { type: "string", maxLength: MAX_SESSION_TITLE_LENGTH },
      metadata: ANY_OBJECT,
      ...(bodyIdentity
        ? {
            userId: {
              type: "string",
              description: "The owner: read only because no resolver governs the flow.",
            },
            orgId: {
              type: "string",
              description: "The session's org for life: read only because no resolver governs the flow.",
            },
          }
        : {}),
    },
  };
}

/** One session-creating operation per flow (`POST /notebook/sessions`, `createNotebookSession`). */
function sessionCreateOperations(host: FlowHost, unique: UniqueOperationId): RouteOperation[] {
  return host.registry.flows.map((flow) => ({
    params: { flowId: flow.id },
    operationId: unique(`create${pascal(flow.id)}Session`),
    summary: `Create a session of ${flow.id}`,
    requestBody: jsonBody(sessionCreateSchema(!host.hasResolver(flow))),
    flow,
  }));
}

/** Sessions: the caller's list, one session and what hangs off it, and creating one. */
export const sessionRoutes: Route<HttpContext>[] = [
  {
    method: "GET",
    path: "/sessions",
    doc: {
      operationId: "listSessions",
      auth: "optional-principal",
      tag: "Sessions",
      summary:
        "List the caller's sessions, newest first, a page at a time (never refused: an unidentified caller gets an empty list)",
      parameters: [narrowing("userId"), narrowing("flowId"), ...PAGE_PARAMETERS],
      responses: {
        200: jsonAnswer("A page of sessions; nextCursor is null on the last page", {
          type: "object",
          required: ["sessions", "nextCursor"],
          properties: { sessions: SESSIONS, nextCursor: { type: ["string", "null"] } },
        }),
      },
      errors: [400],
    },
    handler: async (req, _params, { host }) => {
      // Never refused: a repeated userId/flowId narrows (a row matches every value), it is no 400. A malformed
      // limit or cursor is (invalid-pagination).
      const userId = queryValues(req, "userId");
      const flowId = queryValues(req, "flowId");
      const { sessions, nextCursor } = await host.listSessionsPage(httpCaller(req), {
        ...(userId !== undefined ? { userId } : {}),
        ...(flowId !== undefined ? { flowId } : {}),
        ...pageQuery(req),
      });
      return json(200, { sessions: sessions.map(sessionView), nextCursor });
    },
  },
  {
    method: "GET",
    path: "/sessions/:sessionId",
    doc: {
      operationId: "getSession",
      auth: "principal",
      tag: "Sessions",
      summary: "Read a session",
      responses: { 200: jsonAnswer("The session", ONE_SESSION) },
      errors: [401, 403, 404],
    },
    handler: async (req, { sessionId }, { host }) =>
      json(200, { session: sessionView(await host.getSession(sessionId!, httpCaller(req))) }),
  },
  {
    method: "PATCH",
    path: "/sessions/:sessionId",
    doc: {
      operationId: "updateSession",
      auth: "principal",
      tag: "Sessions",
      summary:
        "Rename a session or change its metadata (merged one level deep; null removes a key); answers { session } as GET does",
      requestBody: {
        required: true,
        content: { "application/json": { schema: SESSION_CHANGE_SCHEMA } },
      },
      responses: { 200: jsonAnswer("The session", ONE_SESSION) },
      errors: [400, 401, 403, 404, 413, 415, 503],
    },
    handler: async (req, { sessionId }, { host }) => {
      const body = parseObjectBody(req);
      const session = await host.updateSession(sessionId!, httpCaller(req), body);
      return json(200, { session: sessionView(session) });
    },
  },
  {
    method: "DELETE",
    path: "/sessions/:sessionId",
    doc: {
      operationId: "deleteSession",
      auth: "principal",
      tag: "Sessions",
      summary:
        "Delete a session: aborts its running requests, removes it, the sessions beneath it and everything stored under them; a second DELETE is 404",
      responses: {
        200: jsonAnswer("{ removed: { sessions, requests, events, states, resources, contents } }", {
          type: "object",
          required: ["removed"],
          properties: { removed: REMOVAL_SCHEMA },
        }),
      },
      errors: [401, 403, 404, 415, 503],
    },
    handler: async (req, { sessionId }, { host }) =>
      json(200, { removed: await host.deleteSession(sessionId!, httpCaller(req)) }),
  },
  {
    method: "GET",
    path: "/sessions/:sessionId/requests",
    doc: {
      operationId: "listSessionRequests",
      auth: "principal",
      tag: "Sessions",
      summary: "The requests that ran in a session, newest first, a page at a time",
      parameters: PAGE_PARAMETERS,
      responses: { 200: jsonAnswer("{ requests, nextCursor }") },
      errors: [400, 401, 403, 404],
    },
    handler: async (req, { sessionId }, { host }) => {
      const page = await host.listSessionRequests(sessionId!, httpCaller(req), pageQuery(req));
      return json(200, { requests: page.requests.map(requestSummaryView), nextCursor: page.nextCursor });
    },
  },
  {
    method: "GET",
    path: "/sessions/:sessionId/children",
    doc: {
      operationId: "listChildSessions",
      auth: "principal",
      tag: "Sessions",
      summary: "Sessions started beneath a conversation",
      responses: {
        200: jsonAnswer("The sessions beneath it", {
          type: "object",
          required: ["sessions"],
          properties: { sessions: SESSIONS },
        }),
      },
      errors: [401, 403, 404],
    },
    handler: async (req, { sessionId }, { host }) => {
      const children = await host.listChildren(sessionId!, httpCaller(req));
      return json(200, { sessions: children.map(sessionView) });
    },
  },
  {
    method: "GET",
    path: "/sessions/:sessionId/manifest",
    doc: {
      operationId: "getSessionManifest",
      auth: "none",
      tag: "Sessions",
      summary: "Resource manifest",
      responses: { 200: jsonAnswer("ResourceManifest") },
      errors: [404],
    },
    handler: async (_req, { sessionId }, { host }) => json(200, await host.manifest(sessionId!)),
  },
  {
    method: "GET",
    path: "/sessions/:sessionId/state",
    doc: {
      operationId: "getSessionState",
      auth: "principal",
      tag: "Sessions",
      summary: "Session snapshot",
      responses: { 200: jsonAnswer("Snapshot") },
      errors: [401, 403, 404],
    },
    handler: async (req, { sessionId }, { host }) =>
      json(200, await host.snapshot(sessionId!, httpCaller(req))),
  },
  {
    method: "GET",
    path: "/sessions/:sessionId/debug",
    doc: {
      operationId: "getSessionDebug",
      auth: "principal",
      tag: "Sessions",
      summary: "Development inspector (unfiltered)",
      responses: { 200: jsonAnswer("State") },
      errors: [401, 403, 404],
    },
    handler: async (req, { sessionId }, { host }) =>
      json(200, await host.inspect(sessionId!, httpCaller(req))),
  },
  {
    method: "POST",
    path: "/:flowId/sessions",
    doc: {
      operationId: "createSession",
      auth: "principal",
      tag: "Sessions",
      summary: "Create a session",
      operations: sessionCreateOperations,
      responses: { 201: jsonAnswer("The session, created", ONE_SESSION) },
      errors: [400, 401, 403, 404, 409, 413, 415, 503],
    },
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
];
