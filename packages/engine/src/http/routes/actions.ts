import type { FlowHost } from "../../host.js";
import type { HttpContext } from "../context.js";
import { streamResponse, wantsEventStream } from "../event-stream-response.js";
import { schemaRef } from "../openapi-components.js";
import { acceptsAbsent, componentSchemas, pascal } from "../openapi-schemas.js";
import { httpCaller, optionalString, parseObjectBody } from "../request-body.js";
import {
  jsonAnswer,
  jsonBody,
  type RouteOperation,
  SSE_ANSWER,
  type UniqueOperationId,
} from "../route-doc.js";
import type { Route } from "../router.js";
import { json } from "../types.js";

/** Who the caller says it is, read only where no resolver governs the flow. */
const BODY_IDENTITY = {
  userId: {
    type: "string",
    description: "The caller's user: read only because no resolver governs the flow.",
  },
  orgId: {
    type: "string",
    description:
      "Read only because no resolver governs the flow: another org than the session's is 403 org-binding-mismatch; none acts in the session's org.",
  },
};

/**
 * One operation per action of each flow (`POST /notebook/actions/addNote`, `runNotebookAddNote`): the body's
 * `input` is the action's `inputSchema` as a caller writes it (defaults optional), and the run's `output` the
 * `outputSchema` (both `<Flow><Action>Input`/`Output` components).
 */
function actionOperations(host: FlowHost, unique: UniqueOperationId): RouteOperation[] {
  return host.registry.flows.flatMap((flow) =>
    Object.entries(flow.definition.actions).map(([action, definition]): RouteOperation => {
      const operationId = unique(`run${pascal(flow.id)}${pascal(action)}`);
      const name = operationId.slice("run".length);
      const { inputSchema, outputSchema } = definition.block;
      const where = `${flow.id}'s action ${action}`;
      const schemas = {
        ...(inputSchema
          ? componentSchemas(inputSchema, "input", `${name}Input`, `The input of ${where}`)
          : {}),
        ...(outputSchema
          ? componentSchemas(outputSchema, "output", `${name}Output`, `The output of ${where}`)
          : {}),
      };
      const input = inputSchema
        ? schemaRef(`${name}Input`)
        : { description: "Any JSON: the action's block declares no inputSchema." };
      const inputRequired = inputSchema !== undefined && !acceptsAbsent(inputSchema);
      const body = {
        type: "object",
        ...(inputRequired ? { required: ["input"] } : {}),
        properties: {
          input,
          sessionId: {
            type: "string",
            description: "The session to run in (owned by the caller); a new session when absent.",
          },
          ...(host.hasResolver(flow) ? {} : BODY_IDENTITY),
        },
      };
      const description = definition.description ?? definition.block.description;
      return {
        params: { flowId: flow.id, action },
        operationId,
        summary: `Run ${flow.id}'s action ${action}`,
        ...(description !== undefined ? { description } : {}),
        // No body at all is `{}`: fine for an action whose input may be absent.
        requestBody: inputRequired ? jsonBody(body, true) : jsonBody(body),
        flow,
        schemas,
        output: outputSchema ? schemaRef(`${name}Output`) : null,
      };
    }),
  );
}

/** Running an action: 202 with the request's id, or its event stream inline when the caller asks for one. */
export const actionRoutes: Route<HttpContext>[] = [
  {
    method: "POST",
    path: "/:flowId/actions/:action",
    doc: {
      operationId: "runAction",
      auth: "principal",
      tag: "Actions",
      summary: "Run an action",
      operations: actionOperations,
      responses: {
        202: jsonAnswer("Accepted: the run goes on; follow it by its requestId", schemaRef("ActionAccepted")),
        200: {
          ...SSE_ANSWER,
          description: `With \`Accept: text/event-stream\`: the request's events inline; \`x-request-id\` and \`x-session-id\` name the request and its session. ${SSE_ANSWER.description}`,
        },
      },
      errors: [400, 401, 403, 404, 409, 413, 415, 503],
    },
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
];
