import { FlowError, type JsonObject, type SessionRecord } from "@flowrt/core";
import type { HttpContext } from "../context.js";
import { httpCaller, optionalString, parseObjectBody, queryValues } from "../request-body.js";
import { jsonAnswer, jsonBody, narrowing } from "../route-doc.js";
import type { Route } from "../router.js";
import { json } from "../types.js";

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

/** Sessions: the caller's list, one session and what hangs off it, and creating one. */
export const sessionRoutes: Route<HttpContext>[] = [
  {
    method: "GET",
    path: "/sessions",
    doc: {
      summary: "List the caller's sessions (never refused: an unidentified caller gets an empty list)",
      parameters: [narrowing("userId"), narrowing("flowId")],
      responses: { 200: jsonAnswer("Sessions") },
    },
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
    path: "/sessions/:sessionId",
    doc: { summary: "Read a session", responses: { 200: jsonAnswer("Session") }, errors: [401, 403, 404] },
    handler: async (req, { sessionId }, { host }) =>
      json(200, { session: sessionView(await host.getSession(sessionId!, httpCaller(req))) }),
  },
  {
    method: "GET",
    path: "/sessions/:sessionId/children",
    doc: {
      summary: "Sessions started beneath a conversation",
      responses: { 200: jsonAnswer("Sessions") },
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
    doc: { summary: "Resource manifest", responses: { 200: jsonAnswer("ResourceManifest") }, errors: [404] },
    handler: async (_req, { sessionId }, { host }) => json(200, await host.manifest(sessionId!)),
  },
  {
    method: "GET",
    path: "/sessions/:sessionId/state",
    doc: { summary: "Session snapshot", responses: { 200: jsonAnswer("Snapshot") }, errors: [401, 403, 404] },
    handler: async (req, { sessionId }, { host }) =>
      json(200, await host.snapshot(sessionId!, httpCaller(req))),
  },
  {
    method: "GET",
    path: "/sessions/:sessionId/debug",
    doc: {
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
      summary: "Create a session",
      requestBody: jsonBody("SessionCreate"),
      responses: { 201: jsonAnswer("Created") },
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
