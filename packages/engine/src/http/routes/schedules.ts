import type { HttpContext } from "../context.js";
import { httpCaller, queryValues } from "../request-body.js";
import { jsonAnswer, narrowing } from "../route-doc.js";
import type { Route } from "../router.js";
import { json } from "../types.js";

const nullableString = { type: ["string", "null"] };

/** One schedule as `GET /schedules` lists it (`schedules/schedule-listing.ts`). */
const SCHEDULE_SCHEMA = {
  type: "object",
  required: ["flowId", "name", "cron", "timezone", "catchUp", "userId", "nextTickAt", "lastTick"],
  properties: {
    flowId: { type: "string" },
    name: { type: "string" },
    cron: { type: "string" },
    timezone: { type: "string", description: "IANA time zone the expression is read in." },
    catchUp: { type: "string", enum: ["none", "latest"] },
    userId: { type: "string", description: "The principal the runs act as." },
    orgId: { type: "string" },
    sessionId: { type: "string", description: "The session the runs go to; absent: a fresh one per tick." },
    nextTickAt: { ...nullableString, format: "date-time", description: "null when no tick is left." },
    lastTick: {
      type: ["object", "null"],
      required: ["at"],
      properties: {
        at: { type: "string", format: "date-time" },
        requestId: { type: "string", description: "The request the tick started, once it fired." },
      },
    },
  },
};

/** Schedules: the ones whose runs act as the caller. */
export const scheduleRoutes: Route<HttpContext>[] = [
  {
    method: "GET",
    path: "/schedules",
    doc: {
      operationId: "listSchedules",
      auth: "optional-principal",
      tag: "Schedules",
      summary:
        "List the schedules whose runs act as the caller, with their next tick (never refused: an unidentified caller gets an empty list)",
      parameters: [narrowing("userId"), narrowing("flowId")],
      responses: {
        200: jsonAnswer("{ schedules }", {
          type: "object",
          required: ["schedules"],
          properties: { schedules: { type: "array", items: SCHEDULE_SCHEMA } },
        }),
      },
      errors: [413],
    },
    handler: async (req, _params, { host }) => {
      const userId = queryValues(req, "userId");
      const flowId = queryValues(req, "flowId");
      const schedules = await host.listSchedules(httpCaller(req), {
        ...(userId !== undefined ? { userId } : {}),
        ...(flowId !== undefined ? { flowId } : {}),
      });
      return json(200, { schedules });
    },
  },
];
