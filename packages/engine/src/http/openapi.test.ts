import { defineFlow } from "@flowrt/core";
import { describe, expect, it } from "vitest";
import { withHost } from "../testing/fixtures.js";
import { openApiAppOptions } from "../testing/openapi-app.js";
import { createHttpHandler } from "./handler.js";
import { openApiDocument } from "./openapi.js";
import type { Route } from "./router.js";
import { json } from "./types.js";

const empty = defineFlow({ kind: "empty" });

describe("openApiDocument", () => {
  it("lists a route of the table with its path parameters, answers, errors and the default problem", async () => {
    await withHost({ flows: [empty] }, async (host) => {
      const route: Route<unknown> = {
        method: "PUT",
        path: "/things/:thingId/parts/*part",
        doc: {
          operationId: "putPart",
          summary: "Put a part",
          auth: "principal",
          pathParams: { part: "a part; encode '/' as %2F" },
          parameters: [{ name: "dryRun", in: "query", schema: { type: "boolean" } }],
          requestBody: { content: { "application/json": { schema: {} } } },
          responses: { 200: { description: "Put" } },
          errors: [400, 409],
        },
        handler: async () => json(200, {}),
      };
      const doc = openApiDocument(host, [route as Route<never>], "/v1");
      expect(doc.servers).toEqual([{ url: "/v1" }]);
      expect(doc.paths).toEqual({
        "/things/{thingId}/parts/{part}": {
          put: {
            operationId: "putPart",
            summary: "Put a part",
            parameters: [
              {
                name: "thingId",
                in: "path",
                required: true,
                schema: { type: "string" },
                description: "thingId",
              },
              {
                name: "part",
                in: "path",
                required: true,
                schema: { type: "string" },
                description: "a part; encode '/' as %2F",
              },
              { name: "dryRun", in: "query", schema: { type: "boolean" } },
            ],
            requestBody: { content: { "application/json": { schema: {} } } },
            responses: {
              200: { description: "Put" },
              400: { $ref: "#/components/responses/BadRequest" },
              409: { $ref: "#/components/responses/Conflict" },
              default: { $ref: "#/components/responses/Problem" },
            },
            // A flow without a resolver: no credential is asked for.
            security: [],
          },
        },
      });
    });
  });

  it("the served document has one operation per route of the handler's table (per flow, action and webhook provider where the route is documented so), and nothing else", async () => {
    await withHost(openApiAppOptions(), async (host) => {
      const http = createHttpHandler(host);
      const res = await http({
        method: "GET",
        path: "/openapi.json",
        url: "/api/flows/openapi.json",
        query: {},
        headers: {},
      });
      const doc = res.body as { paths: Record<string, Record<string, unknown>> };
      const operations = Object.entries(doc.paths).flatMap(([path, item]) =>
        Object.keys(item).map((method) => `${method.toUpperCase()} ${path}`),
      );
      expect(operations).toHaveLength(new Set(operations).size);
      expect(operations).toContain("POST /payments/webhooks/stripe");
      expect(operations).toContain("POST /notebook/actions/addNote");
      expect(operations).toContain("POST /status-page/actions/ping");
      expect(operations).toContain("POST /guestbook/sessions");
      expect(operations).toContain("DELETE /sessions/{sessionId}/resources/{ref}/{topic}");
      // Every operation is grouped under one tag the document describes.
      const tags = (res.body as { tags: { name: string; description: string }[] }).tags;
      for (const item of Object.values(doc.paths))
        for (const op of Object.values(item) as { tags: string[] }[]) {
          expect(op.tags).toHaveLength(1);
          expect(tags.map((tag) => tag.name)).toContain(op.tags[0]);
        }
      expect(doc.paths["/notebook/actions/addNote"]!.post).toMatchObject({ tags: ["Actions"] });
      // The routes documented per flow are not documented a second time with their templates.
      expect(
        operations.filter((operation) => /\{(flowId|flowKind|action|provider)\}/.test(operation)),
      ).toEqual([]);
      // Every operation the document names is served: anything else is 404 or 405.
      for (const operation of operations) {
        const [method, path] = operation.split(" ") as [string, string];
        const concrete = path.replace(/\{[^}]+\}/g, "x");
        const answer = await http({ method, path: concrete, url: concrete, query: {}, headers: {} });
        const code = (answer.body as { code?: string } | undefined)?.code;
        expect(["not-found", "method-not-allowed"], operation).not.toContain(code);
      }
    });
  });

  it("every operation names a 4xx it really answers: a probe, the flow list and this document answer 413 to a body over the limit", async () => {
    await withHost({ flows: [empty] }, async (host) => {
      const http = createHttpHandler(host, { bodyLimit: 8 });
      for (const path of ["/healthz", "/readyz", "/", "/openapi.json"]) {
        const answer = await http({
          method: "GET",
          path,
          url: `/api/flows${path}`,
          query: {},
          headers: {},
          rawBody: new TextEncoder().encode("sixteen bytes!!!"),
        });
        expect(answer.status, path).toBe(413);
        expect(answer.body, path).toMatchObject({ code: "payload-too-large", limit: 8 });
      }
      const doc = (
        await http({ method: "GET", path: "/openapi.json", url: "/openapi.json", query: {}, headers: {} })
      ).body as { paths: Record<string, Record<string, { responses: Record<string, unknown> }>> };
      for (const path of ["/healthz", "/readyz", "/", "/openapi.json"])
        expect(doc.paths[path]!.get!.responses["413"], path).toEqual({
          $ref: "#/components/responses/PayloadTooLarge",
        });
    });
  });
});
