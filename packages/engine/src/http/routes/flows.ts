import type { HttpContext } from "../context.js";
import { openApiDocument } from "../openapi.js";
import { jsonAnswer } from "../route-doc.js";
import type { Route } from "../router.js";
import { type HttpRequest, json } from "../types.js";

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

/** Discovery: the flows this host serves, and the OpenAPI description of the API. */
export const flowRoutes: Route<HttpContext>[] = [
  {
    method: "GET",
    path: "/",
    doc: {
      operationId: "listFlows",
      summary: "List flows",
      auth: "none",
      tag: "Discovery",
      responses: { 200: jsonAnswer("Flows") },
      errors: [413],
    },
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
    doc: {
      operationId: "getOpenApiDocument",
      summary: "This OpenAPI 3.1 description",
      auth: "none",
      tag: "Discovery",
      responses: { 200: jsonAnswer("OpenAPI document") },
      errors: [413],
    },
    handler: async (req, _params, { host, routes }) =>
      json(200, openApiDocument(host, routes, servedAt(req))),
  },
];
