import type { HttpContext } from "../context.js";
import { streamResponse, wantsEventStream } from "../event-stream-response.js";
import { httpCaller, optionalString, parseObjectBody } from "../request-body.js";
import { jsonAnswer, jsonBody, SSE_ANSWER } from "../route-doc.js";
import type { Route } from "../router.js";
import { json } from "../types.js";

/** Running an action: 202 with the request's id, or its event stream inline when the caller asks for one. */
export const actionRoutes: Route<HttpContext>[] = [
  {
    method: "POST",
    path: "/:flowId/actions/:action",
    doc: {
      summary: "Run an action",
      requestBody: jsonBody("ActionCall"),
      responses: { 202: jsonAnswer("Accepted: { requestId, sessionId }"), 200: SSE_ANSWER },
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
