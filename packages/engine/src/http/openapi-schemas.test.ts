import { defineFlow, handler } from "@flowrt/core";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { withHost } from "../testing/fixtures.js";
import { openApiAppDocument } from "../testing/openapi-app.js";
import { createHttpHandler } from "./handler.js";
import { acceptsAbsent, componentSchemas } from "./openapi-schemas.js";

type Doc = {
  paths: Record<string, Record<string, Record<string, any>>>;
  components: { schemas: Record<string, Record<string, unknown>> };
};

async function documentOf(flows: ReturnType<typeof defineFlow>[]): Promise<Doc> {
  return withHost({ flows }, async (host) => {
    const answer = await createHttpHandler(host)({
      method: "GET",
      path: "/openapi.json",
      url: "/api/flows/openapi.json",
      query: {},
      headers: {},
    });
    return answer.body as Doc;
  });
}

/** Every `$ref` in a value. */
function refs(value: unknown, out: string[] = []): string[] {
  if (Array.isArray(value)) for (const item of value) refs(item, out);
  else if (typeof value === "object" && value !== null)
    for (const [key, item] of Object.entries(value)) {
      if (key === "$ref" && typeof item === "string") out.push(item);
      else refs(item, out);
    }
  return out;
}

describe("action schemas from zod (z.toJSONSchema)", () => {
  it("converts a caller's input with io 'input' (a default is optional) and the run's output with io 'output'", () => {
    const schema = z.object({ title: z.string(), text: z.string().default("") });
    expect(componentSchemas(schema, "input", "In", "x")).toEqual({
      In: {
        type: "object",
        properties: { title: { type: "string" }, text: { type: "string", default: "" } },
        required: ["title"],
      },
    });
    expect(componentSchemas(schema, "output", "Out", "x").Out).toMatchObject({
      required: ["title", "text"],
      additionalProperties: false,
    });
  });

  it("falls back to any JSON, with a description saying why, for a schema zod cannot convert (it never throws)", () => {
    for (const schema of [
      z.object({ at: z.date() }),
      z.bigint(),
      z.custom<string>((value) => typeof value === "string"),
      z.string().transform((value) => new Date(value)),
    ]) {
      const io = schema instanceof z.ZodPipe ? "output" : "input";
      const converted = componentSchemas(schema, io, "X", "The input of flow's action a");
      expect(Object.keys(converted)).toEqual(["X"]);
      expect(converted.X).toEqual({
        description: expect.stringMatching(/^The input of flow's action a: .*any JSON/),
      });
    }
  });

  it("moves $defs (recursive and registered schemas) to components of their own and points the $refs at them", () => {
    interface Node {
      name: string;
      children: Node[];
    }
    const Node: z.ZodType<Node> = z.object({
      name: z.string(),
      get children() {
        return z.array(Node);
      },
    });
    const Label = z.string().meta({ id: "Label" });
    const converted = componentSchemas(z.object({ root: Node, label: Label }), "input", "Tree", "x");
    expect(Object.keys(converted).sort()).toEqual(["Tree", "Tree.Label", "Tree.schema0"]);
    for (const ref of refs(converted)) {
      expect(ref).toMatch(/^#\/components\/schemas\//);
      expect(Object.keys(converted)).toContain(ref.slice("#/components/schemas/".length));
    }
    expect(JSON.stringify(converted)).not.toContain("$schema");
    expect(JSON.stringify(converted)).not.toContain("$defs");
  });

  it("knows an input a caller may leave out", () => {
    expect(acceptsAbsent(z.object({}).optional())).toBe(true);
    expect(acceptsAbsent(z.string().default("x"))).toBe(true);
    expect(acceptsAbsent(z.object({}))).toBe(false);
  });
});

describe("per-action operations in the document", () => {
  it("gives each action its operation, body and components; every $ref of the document resolves", async () => {
    const doc = (await openApiAppDocument()) as Doc;
    const addNote = doc.paths["/notebook/actions/addNote"]!.post!;
    expect(addNote.operationId).toBe("runNotebookAddNote");
    expect(addNote.requestBody).toMatchObject({
      required: true,
      content: {
        "application/json": {
          schema: {
            required: ["input"],
            properties: { input: { $ref: "#/components/schemas/NotebookAddNoteInput" } },
          },
        },
      },
    });
    expect(addNote.responses["202"].content["application/json"].schema).toEqual({
      $ref: "#/components/schemas/ActionAccepted",
    });
    expect(doc.components.schemas.ActionAccepted).toMatchObject({ required: ["requestId", "sessionId"] });
    // The request record's output names the actions' outputs.
    expect(JSON.stringify(doc.components.schemas.Request)).toContain(
      "#/components/schemas/NotebookAddNoteOutput",
    );
    // A date in the input: any JSON, said so, and the operation is still there.
    expect(doc.components.schemas.NotebookRemindAtInput).toEqual({
      description: expect.stringContaining("no JSON Schema form"),
    });
    const ids = Object.values(doc.paths).flatMap((item) => Object.values(item).map((op) => op.operationId));
    expect(new Set(ids).size).toBe(ids.length);
    for (const ref of refs(doc)) {
      const target = ref
        .slice(2)
        .split("/")
        .reduce<any>((node, key) => node?.[key], doc);
      expect(target, ref).toBeDefined();
    }
  });

  it("keeps operation ids unique when two action names read alike (add-note, addNote)", async () => {
    const block = handler({ name: "b", inputSchema: z.object({ n: z.number() }), execute: async () => 1 });
    const doc = await documentOf([defineFlow({ kind: "f", actions: { "add-note": block, addNote: block } })]);
    expect(doc.paths["/f/actions/add-note"]!.post!.operationId).toBe("runFAddNote");
    expect(doc.paths["/f/actions/addNote"]!.post!.operationId).toBe("runFAddNote2");
    expect(doc.components.schemas).toHaveProperty("FAddNoteInput");
    expect(doc.components.schemas).toHaveProperty("FAddNote2Input");
  });

  it("documents an action without schemas as taking and answering any JSON, its body optional", async () => {
    const doc = await documentOf([
      defineFlow({ kind: "f", actions: { ping: handler({ name: "ping", execute: async () => "pong" }) } }),
    ]);
    const ping = doc.paths["/f/actions/ping"]!.post!;
    expect(ping.requestBody.required).toBeUndefined();
    expect(ping.requestBody.content["application/json"].schema.properties.input).toEqual({
      description: expect.stringContaining("no inputSchema"),
    });
    expect(Object.keys(doc.components.schemas).filter((name) => name.startsWith("FPing"))).toEqual([]);
  });
});
