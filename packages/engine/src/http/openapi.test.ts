import { defineFlow } from "@flowrt/core";
import { describe, expect, it } from "vitest";
import { withHost } from "../testing/fixtures.js";
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
          summary: "Put a part",
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
              400: { $ref: "#/components/responses/Problem" },
              409: { $ref: "#/components/responses/Problem" },
              default: { $ref: "#/components/responses/Problem" },
            },
          },
        },
      });
    });
  });

  it("the served document has one operation per route of the handler's table, and nothing else", async () => {
    await withHost({ flows: [empty] }, async (host) => {
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
      expect(operations).toContain("POST /{flowKind}/webhooks/{provider}");
      expect(operations).toContain("DELETE /sessions/{sessionId}/resources/{ref}/{topic}");
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
});
