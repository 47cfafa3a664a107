import type { FlowHost } from "../host.js";
import { PROBLEM } from "./route-doc.js";
import type { Route } from "./router.js";

/** A route path in OpenAPI's form: `:name` and `*name` segments become `{name}`. */
function openApiPath(path: string): string {
  return path.replace(/(^|\/)[:*]([^/]+)/g, "$1{$2}");
}

/** The path parameters of a route, in the order its path names them. */
function pathParameters(path: string, descriptions: Record<string, string> = {}): object[] {
  return path
    .split("/")
    .filter((segment) => segment.startsWith(":") || segment.startsWith("*"))
    .map((segment) => {
      const name = segment.slice(1);
      return {
        name,
        in: "path",
        required: true,
        schema: { type: "string" },
        description: descriptions[name] ?? name,
      };
    });
}

/** The OpenAPI operation of a route, from its own {@link RouteDoc}. */
function operation(route: Route<unknown>): object {
  const { doc } = route;
  const parameters = [...pathParameters(route.path, doc.pathParams), ...(doc.parameters ?? [])];
  const responses: Record<string, object> = {};
  for (const [status, answer] of Object.entries(doc.responses)) responses[status] = answer;
  for (const status of doc.errors ?? []) responses[String(status)] = PROBLEM;
  // Any route may also answer a problem it does not list: 405 for another method, 500, 503 from a store.
  responses.default = PROBLEM;
  return {
    summary: doc.summary,
    ...(parameters.length > 0 ? { parameters } : {}),
    ...(doc.requestBody ? { requestBody: doc.requestBody } : {}),
    responses,
  };
}

/**
 * An OpenAPI 3.1 description of the host's HTTP API, generated from the route table (each route carries its
 * summary, parameters, body and the statuses it answers). `server` is where the API is served, as the request
 * for the document saw it (a prefix the application mounts it under included); the host's `basePath` by
 * default.
 */
export function openApiDocument(host: FlowHost, routes: readonly Route<never>[], server = host.basePath) {
  const paths: Record<string, Record<string, object>> = {};
  for (const route of routes as readonly Route<unknown>[]) {
    const item = (paths[openApiPath(route.path)] ??= {});
    item[route.method.toLowerCase()] = operation(route);
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
