import express from "express";
import request from "supertest";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createFlowRouter } from "../create-flow-router.js";
import { API } from "./testing/http.js";
import { type Lab, serveLab } from "./testing/lab-server.js";

let s: Lab;
beforeAll(async () => {
  s = await serveLab();
});
afterAll(() => s.close());

/**
 * Every route of the specification's Endpoints section and architecture §3 (the probes included), as OpenAPI path
 * templates; the routes that name a flow are documented once per flow of the lab (below), with their own schemas.
 */
const ROUTES: Record<string, string[]> = {
  "/healthz": ["get"],
  "/readyz": ["get"],
  "/": ["get"],
  "/openapi.json": ["get"],
  "/sessions": ["get"],
  "/schedules": ["get"],
  "/active-requests": ["get"],
  "/sessions/{sessionId}": ["get", "patch", "delete"],
  "/sessions/{sessionId}/requests": ["get"],
  "/sessions/{sessionId}/children": ["get"],
  "/sessions/{sessionId}/manifest": ["get"],
  "/sessions/{sessionId}/state": ["get"],
  "/sessions/{sessionId}/debug": ["get"],
  "/sessions/{sessionId}/resources/{ref}/content": ["get"],
  "/sessions/{sessionId}/resources/{ref}": ["get", "post"],
  "/sessions/{sessionId}/resources/{ref}/{topic}": ["get", "delete"],
  "/sessions/{sessionId}/resources/{ref}/{topic}/content": ["get", "patch"],
  "/requests/{requestId}": ["get"],
  "/requests/{requestId}/stream": ["get"],
  "/requests/{requestId}/abort": ["post"],
  "/requests/{requestId}/retry": ["post"],
};

type Operation = {
  parameters?: Array<{ name: string; in: string; required?: boolean; schema?: unknown }>;
  responses?: Record<string, unknown> & { default?: unknown };
  requestBody?: unknown;
};

/** Follows a local `#/…` reference inside the document. */
function resolveRef(doc: Record<string, unknown>, ref: string): unknown {
  expect(ref.startsWith("#/")).toBe(true);
  return ref
    .slice(2)
    .split("/")
    .reduce<unknown>((node, key) => (node as Record<string, unknown> | undefined)?.[key], doc);
}

function collectRefs(node: unknown, out: string[] = []): string[] {
  if (Array.isArray(node)) for (const item of node) collectRefs(item, out);
  else if (node !== null && typeof node === "object") {
    for (const [key, value] of Object.entries(node)) {
      if (key === "$ref" && typeof value === "string") out.push(value);
      else collectRefs(value, out);
    }
  }
  return out;
}

describe("GET /openapi.json", () => {
  it("is an OpenAPI 3.1 document with a path for every route and the methods each serves", async () => {
    const res = await request(s.url).get(`${API}/openapi.json`).expect(200);
    expect(res.headers["content-type"]).toMatch(/^application\/json/);
    const doc = res.body as Record<string, unknown> & { paths: Record<string, Record<string, Operation>> };
    expect(doc.openapi).toMatch(/^3\.1\.\d+$/);
    expect(doc.info).toMatchObject({ title: expect.any(String), version: expect.any(String) });
    expect(doc.servers).toEqual([{ url: "/api/flows" }]);
    // Session creation and every action per flow (instance), each webhook provider per flow kind.
    const perFlow: Record<string, string[]> = {};
    for (const flow of s.host.registry.flows) {
      perFlow[`/${flow.id}/sessions`] = ["post"];
      for (const action of Object.keys(flow.definition.actions))
        perFlow[`/${flow.id}/actions/${action}`] = ["post"];
      for (const provider of Object.keys(flow.definition.webhooks))
        perFlow[`/${flow.kind}/webhooks/${provider}`] = ["post"];
    }
    expect(perFlow).toHaveProperty(["/multi-a/actions/touch"]);
    expect(perFlow).toHaveProperty(["/inbox/webhooks/signed"]);
    const expected = { ...ROUTES, ...perFlow };
    expect(Object.keys(doc.paths).sort()).toEqual(Object.keys(expected).sort());
    for (const [path, methods] of Object.entries(expected)) {
      expect(Object.keys(doc.paths[path] ?? {}).sort(), path).toEqual([...methods].sort());
    }
  });

  it("declares every path parameter, gives every operation a response, and every $ref resolves", async () => {
    const doc = (await request(s.url).get(`${API}/openapi.json`).expect(200)).body;
    for (const [path, item] of Object.entries(doc.paths as Record<string, Record<string, Operation>>)) {
      const templated = [...path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]).sort();
      for (const [method, operation] of Object.entries(item)) {
        const where = `${method.toUpperCase()} ${path}`;
        const declared = (operation.parameters ?? []).filter((p) => p.in === "path");
        expect(declared.map((p) => p.name).sort(), where).toEqual(templated);
        for (const p of declared) expect(p.required, where).toBe(true);
        const statuses = Object.keys(operation.responses ?? {});
        expect(statuses.length, where).toBeGreaterThan(0);
        for (const status of statuses) expect(status, where).toMatch(/^([1-5]\d\d|default)$/);
        expect(
          statuses.some((st) => st.startsWith("2")),
          where,
        ).toBe(true);
      }
    }
    for (const ref of collectRefs(doc)) expect(resolveRef(doc, ref), ref).toBeDefined();
  });

  it("describes what the routes answer beyond success: 413 on every body route, the PATCH body, Last-Event-ID, a default problem", async () => {
    const doc = (await request(s.url).get(`${API}/openapi.json`).expect(200)).body;
    const op = (path: string, method: string) => doc.paths[path][method] as Operation;
    for (const [path, method] of [
      ["/lab/sessions", "post"],
      ["/lab/actions/touch", "post"],
      ["/inbox/webhooks/signed", "post"],
      ["/sessions/{sessionId}/resources/{ref}", "post"],
      ["/sessions/{sessionId}/resources/{ref}/{topic}/content", "patch"],
    ] as const) {
      expect(Object.keys(op(path, method).responses ?? {}), `${method} ${path}`).toEqual(
        expect.arrayContaining(["413"]),
      );
    }
    expect(op("/inbox/webhooks/signed", "post").responses).toHaveProperty("400");
    expect(op("/sessions/{sessionId}/resources/{ref}/{topic}/content", "patch").requestBody).toMatchObject({
      content: { "application/json": { schema: { $ref: "#/components/schemas/ItemContent" } } },
    });
    expect(doc.components.schemas.ItemContent).toMatchObject({ required: ["content"] });
    expect(op("/requests/{requestId}/stream", "get").parameters).toEqual(
      expect.arrayContaining([expect.objectContaining({ name: "Last-Event-ID", in: "header" })]),
    );
    for (const item of Object.values(doc.paths as Record<string, Record<string, Operation>>)) {
      for (const operation of Object.values(item)) {
        expect(operation.responses?.default).toEqual({ $ref: "#/components/responses/Problem" });
      }
    }
  });

  it("names the server where the application mounted the API (a prefix included)", async () => {
    const app = express();
    app.use("/v1", createFlowRouter(s.host));
    const doc = (await request(app).get(`/v1${API}/openapi.json`).expect(200)).body;
    expect(doc.servers).toEqual([{ url: `/v1${API}` }]);
  });

  it("states the list limit as served: default 50, values above 200 served as 200", async () => {
    const doc = (await request(s.url).get(`${API}/openapi.json`).expect(200)).body;
    const limit = doc.paths["/sessions/{sessionId}/resources/{ref}"].get.parameters.find(
      (p: { name: string }) => p.name === "limit",
    );
    expect(limit.schema).toMatchObject({ type: "integer", minimum: 1, default: 50 });
    expect(limit.schema.maximum).toBeUndefined();
    expect(limit.description).toMatch(/200/);
  });
});

describe("GET /", () => {
  it("lists every flow with its actions, webhooks and whether it requires authentication", async () => {
    const res = await request(s.url).get(`${API}/`).expect(200);
    const byId = Object.fromEntries(res.body.flows.map((f: { flowId: string }) => [f.flowId, f]));
    expect(Object.keys(byId).sort()).toEqual(["inbox", "lab", "multi-a", "multi-b", "open", "solo-1"]);
    expect(byId.lab).toEqual({
      flowId: "lab",
      kind: "lab",
      actions: ["touch", "steps", "hold", "fail"],
      webhooks: [],
      requiresAuth: true,
    });
    expect(byId.open).toMatchObject({ requiresAuth: false });
    expect(byId["multi-b"]).toMatchObject({ kind: "multi", actions: ["touch", "hold"], requiresAuth: true });
    expect(byId.inbox).toMatchObject({ actions: [], webhooks: ["signed"], requiresAuth: false });
    // Without a trailing slash too.
    expect((await request(s.url).get(API).expect(200)).body).toEqual(res.body);
  });
});
