import type { FlowHost } from "../host.js";

const problem = { $ref: "#/components/responses/Problem" };
const json = (description: string, schema: object = { type: "object" }) => ({
  description,
  content: { "application/json": { schema } },
});
const errors = (...statuses: number[]) => Object.fromEntries(statuses.map((s) => [String(s), problem]));
const pathParam = (name: string, description = name) => ({
  name,
  in: "path",
  required: true,
  schema: { type: "string" },
  description,
});
const sse = {
  description: "Server-sent events: `id: <seq>`, `event: <type>`, `data: <json>`; `: ping` heartbeats.",
  content: { "text/event-stream": { schema: { type: "string" } } },
};

/** A listing filter that may repeat: every value given must match (two different values list nothing). */
const narrowing = (name: string) => ({
  name,
  in: "query",
  schema: { type: "array", items: { type: "string" } },
  style: "form",
  explode: true,
  description: `Only narrows; repeated, a row must match every value.`,
});

/**
 * An OpenAPI 3.1 description of the host's HTTP API, with its flows' actions spelled out. `server` is where
 * the API is served, as the request for the document saw it (a prefix the application mounts it under
 * included); the host's `basePath` by default. Every operation also names the problem any route may answer
 * (`default`: 405 for another method, 500, 503 from a store).
 */
export function openApiDocument(host: FlowHost, server = host.basePath) {
  const paths: Record<string, object> = {
    "/": { get: { summary: "List flows", responses: { 200: json("Flows") } } },
    "/openapi.json": {
      get: { summary: "This OpenAPI 3.1 description", responses: { 200: json("OpenAPI document") } },
    },
    "/sessions": {
      get: {
        summary: "List the caller's sessions (never refused: an unidentified caller gets an empty list)",
        parameters: [narrowing("userId"), narrowing("flowId")],
        responses: { 200: json("Sessions") },
      },
    },
    "/active-requests": {
      get: {
        summary: "List the caller's active requests (never refused, as the session list)",
        parameters: [narrowing("userId")],
        responses: { 200: json("Requests") },
      },
    },
    "/{flowId}/sessions": {
      post: {
        summary: "Create a session",
        parameters: [pathParam("flowId")],
        requestBody: {
          content: { "application/json": { schema: { $ref: "#/components/schemas/SessionCreate" } } },
        },
        responses: { 201: json("Created"), ...errors(400, 401, 403, 404, 409, 413, 415, 503) },
      },
    },
    "/{flowId}/actions/{action}": {
      post: {
        summary: "Run an action",
        parameters: [pathParam("flowId"), pathParam("action")],
        requestBody: {
          content: { "application/json": { schema: { $ref: "#/components/schemas/ActionCall" } } },
        },
        responses: {
          202: json("Accepted: { requestId, sessionId }"),
          200: sse,
          ...errors(400, 401, 403, 404, 409, 413, 415, 503),
        },
      },
    },
    "/{flowKind}/webhooks/{provider}": {
      post: {
        summary: "Receive a signed webhook delivery",
        parameters: [pathParam("flowKind"), pathParam("provider")],
        requestBody: {
          description: "The provider's payload, any content type; its exact bytes are verified.",
          content: { "*/*": { schema: {} } },
        },
        responses: {
          200: json("Handshake acknowledged"),
          202: json("Dispatched or ignored"),
          ...errors(400, 401, 404, 413, 503),
        },
      },
    },
    "/sessions/{sessionId}": {
      get: {
        summary: "Read a session",
        parameters: [pathParam("sessionId")],
        responses: { 200: json("Session"), ...errors(401, 403, 404) },
      },
    },
    "/sessions/{sessionId}/children": {
      get: {
        summary: "Sessions started beneath a conversation",
        parameters: [pathParam("sessionId")],
        responses: { 200: json("Sessions"), ...errors(401, 403, 404) },
      },
    },
    "/sessions/{sessionId}/manifest": {
      get: {
        summary: "Resource manifest",
        parameters: [pathParam("sessionId")],
        responses: { 200: json("ResourceManifest"), ...errors(404) },
      },
    },
    "/sessions/{sessionId}/state": {
      get: {
        summary: "Session snapshot",
        parameters: [pathParam("sessionId")],
        responses: { 200: json("Snapshot"), ...errors(401, 403, 404) },
      },
    },
    "/sessions/{sessionId}/debug": {
      get: {
        summary: "Development inspector (unfiltered)",
        parameters: [pathParam("sessionId")],
        responses: { 200: json("State"), ...errors(401, 403, 404) },
      },
    },
    "/sessions/{sessionId}/resources/{ref}/content": {
      get: {
        summary: "Single resource content",
        parameters: [pathParam("sessionId"), pathParam("ref")],
        responses: { 200: json("{ content }"), ...errors(401, 403, 404) },
      },
    },
    "/sessions/{sessionId}/resources/{ref}": {
      get: {
        summary: "List a collection page",
        parameters: [
          pathParam("sessionId"),
          pathParam("ref"),
          {
            name: "limit",
            in: "query",
            description: "Page size, at most 200: a larger value is served as 200 (not refused).",
            schema: { type: "integer", minimum: 1, default: 50 },
          },
          { name: "offset", in: "query", schema: { type: "integer", minimum: 0, default: 0 } },
          { name: "topicPrefix", in: "query", schema: { type: "string" } },
          { name: "cursor", in: "query", schema: { type: "string" } },
        ],
        responses: { 200: json("Collection page"), ...errors(400, 401, 403, 404) },
      },
      post: {
        summary: "Create a collection item",
        parameters: [pathParam("sessionId"), pathParam("ref")],
        requestBody: {
          content: { "application/json": { schema: { $ref: "#/components/schemas/ItemCreate" } } },
        },
        responses: { 201: json("Created"), ...errors(400, 401, 403, 404, 409, 413, 415, 503) },
      },
    },
    "/sessions/{sessionId}/resources/{ref}/{topic}": {
      get: {
        summary: "Item state (clientData)",
        parameters: [
          pathParam("sessionId"),
          pathParam("ref"),
          pathParam("topic", "item key; encode '/' as %2F"),
        ],
        responses: { 200: json("Item"), ...errors(401, 403, 404) },
      },
      delete: {
        summary: "Delete an item (200 when missing)",
        parameters: [pathParam("sessionId"), pathParam("ref"), pathParam("topic")],
        responses: { 200: json("Deleted"), ...errors(401, 403, 404, 409, 415, 503) },
      },
    },
    "/sessions/{sessionId}/resources/{ref}/{topic}/content": {
      get: {
        summary: "Item content",
        parameters: [pathParam("sessionId"), pathParam("ref"), pathParam("topic")],
        responses: { 200: json("{ content }"), ...errors(401, 403, 404) },
      },
      patch: {
        summary: "Replace item content",
        parameters: [pathParam("sessionId"), pathParam("ref"), pathParam("topic")],
        requestBody: {
          required: true,
          content: { "application/json": { schema: { $ref: "#/components/schemas/ItemContent" } } },
        },
        responses: { 200: json("Updated"), ...errors(400, 401, 403, 404, 413, 415, 503) },
      },
    },
    "/requests/{requestId}": {
      get: {
        summary: "Request status",
        parameters: [pathParam("requestId")],
        responses: { 200: json("Request"), ...errors(401, 403, 404) },
      },
    },
    "/requests/{requestId}/stream": {
      get: {
        summary: "Request event stream (resumes after Last-Event-ID or ?after=)",
        parameters: [
          pathParam("requestId"),
          { name: "after", in: "query", schema: { type: "integer", minimum: 0 } },
          {
            name: "Last-Event-ID",
            in: "header",
            description: "The last event id seen; wins over ?after= when not empty.",
            schema: { type: "integer", minimum: 0 },
          },
        ],
        responses: { 200: sse, ...errors(400, 401, 403, 404) },
      },
    },
    "/requests/{requestId}/abort": {
      post: {
        summary: "Abort a request",
        parameters: [pathParam("requestId")],
        responses: { 202: json("{ status }"), ...errors(401, 403, 404, 409, 415) },
      },
    },
    "/requests/{requestId}/retry": {
      post: {
        summary: "Re-run a request with the same input",
        parameters: [pathParam("requestId")],
        responses: { 202: json("{ requestId, sessionId }"), ...errors(401, 403, 404, 409, 415, 503) },
      },
    },
  };
  for (const item of Object.values(paths) as Array<Record<string, { responses: Record<string, object> }>>) {
    for (const operation of Object.values(item)) operation.responses.default = problem;
  }
  return {
    openapi: "3.1.0",
    info: {
      title: "flowrt HTTP API",
      version: "1",
      description: `Flows on this host: ${host.registry.flows.map((f) => `${f.id} (${Object.keys(f.definition.actions).join(", ") || "no actions"})`).join("; ")}`,
    },
    servers: [{ url: server || "/" }],
    paths,
    components: {
      schemas: {
        SessionCreate: {
          type: "object",
          properties: {
            sessionId: { type: "string" },
            title: { type: "string" },
            metadata: { type: "object" },
            userId: { type: "string", description: "Read only when no resolver governs the flow." },
            orgId: {
              type: "string",
              description: "The session's org for life; read only when no resolver governs the flow.",
            },
          },
        },
        ActionCall: {
          type: "object",
          properties: {
            input: {},
            sessionId: { type: "string" },
            userId: { type: "string", description: "Read only when no resolver governs the flow." },
            orgId: {
              type: "string",
              description:
                "Read only when no resolver governs the flow: another org than the session's is 403 org-binding-mismatch; none acts in the session's org.",
            },
          },
        },
        ItemCreate: {
          type: "object",
          required: ["topic"],
          properties: { topic: { type: "string" }, content: { type: "string" } },
        },
        ItemContent: {
          type: "object",
          required: ["content"],
          properties: { content: { type: "string" } },
        },
        Problem: {
          type: "object",
          required: ["type", "title", "status", "code", "detail"],
          properties: {
            type: { type: "string" },
            title: { type: "string" },
            status: { type: "integer" },
            code: { type: "string" },
            detail: { type: "string" },
          },
        },
      },
      responses: {
        Problem: {
          description: "Problem details",
          content: { "application/problem+json": { schema: { $ref: "#/components/schemas/Problem" } } },
        },
      },
    },
  };
}
