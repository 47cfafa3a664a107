import type { HttpContext } from "../context.js";
import { jsonAnswer } from "../route-doc.js";
import type { Route } from "../router.js";
import { json } from "../types.js";

/** A probe's answer is about now: no cache between the probe and the host may keep it. */
const NO_STORE = { "cache-control": "no-store" };

const READINESS_SCHEMA = {
  type: "object",
  required: ["status", "checks"],
  properties: {
    status: { type: "string", enum: ["ok", "unavailable"] },
    checks: {
      type: "object",
      properties: {
        started: { type: "boolean" },
        draining: { type: "boolean" },
        store: { type: "string", enum: ["ok", "timeout", "error", "skipped"] },
      },
    },
  },
};

/**
 * Kubernetes-style probes, unauthenticated (no resolver runs) and uncached: liveness (`/healthz`, the process
 * answers) and readiness (`/readyz`, see `health/readiness.ts`). Listed before every other route, so no flow id
 * shadows them.
 */
export const healthRoutes: Route<HttpContext>[] = [
  {
    method: "GET",
    path: "/healthz",
    probe: true,
    doc: {
      operationId: "getLiveness",
      summary: "Liveness: the process answers",
      auth: "none",
      tag: "Health",
      responses: {
        200: jsonAnswer("Alive", { type: "object", properties: { status: { const: "ok" } } }),
      },
      // A probe reads no body, but the engine holds every request to the body limit before any route runs.
      errors: [413],
    },
    handler: async () => json(200, { status: "ok" }, NO_STORE),
  },
  {
    method: "GET",
    path: "/readyz",
    probe: true,
    doc: {
      operationId: "getReadiness",
      summary: "Readiness: started, not draining, and the store answers in time",
      auth: "none",
      tag: "Health",
      responses: {
        200: jsonAnswer("Ready", READINESS_SCHEMA),
        503: jsonAnswer("Not ready: the checks name what failed", READINESS_SCHEMA),
      },
      errors: [413],
    },
    handler: async (_request, _params, { host }) => {
      const report = await host.readiness();
      return json(report.status === "ok" ? 200 : 503, report, NO_STORE);
    },
  },
];
