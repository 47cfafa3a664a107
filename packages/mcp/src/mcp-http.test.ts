import type { FlowStores } from "@flowrt/core";
import { createMemoryStores } from "@flowrt/store-memory";
import { McpError } from "@modelcontextprotocol/sdk/types.js";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { mcpInbound } from "./mcp-inbound.js";
import { DELTAS, notebookHost, resolverCalls, TOKENS, waitOutcomes } from "./testing/notebook-flows.js";
import { serveOverHttp } from "./testing/serve.js";

const asAda = { authorization: `Bearer ${TOKENS.ada}` };
const asBob = { authorization: `Bearer ${TOKENS.bob}` };

let stores: FlowStores;
let served: Awaited<ReturnType<typeof serveOverHttp>>;

beforeEach(async () => {
  stores = createMemoryStores();
  served = await serveOverHttp(notebookHost(stores, { inbound: [mcpInbound()] }));
});

afterEach(async () => {
  await served.close();
});

async function sessionsOf(userId: string) {
  return (await stores.sessions.list({ userId })).items;
}

/** The error a promise rejects with. */
async function refusal(promise: Promise<unknown>): Promise<McpError> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(McpError);
  return error as McpError;
}

describe("MCP over Streamable HTTP (Express adapter on a socket)", () => {
  it("lists every action of the flows the caller can use as <flowId>.<action>, and no webhook handler", async () => {
    const ada = await served.connect(asAda);
    const { tools } = await ada.listTools();
    expect(tools.map((tool) => tool.name)).toEqual(["notebook.addNote", "notebook.tell", "notebook.wait"]);
    const addNote = tools[0]!;
    expect(addNote.description).toBe("Adds a note to the session.");
    // The HTTP action body's shape: the block's schema under `input`, an optional `sessionId`.
    expect(addNote.inputSchema).toMatchObject({
      type: "object",
      properties: {
        input: {
          type: "object",
          properties: { key: { type: "string", minLength: 1 }, title: { type: "string" } },
          required: ["key", "title"],
        },
        sessionId: { type: "string" },
      },
      required: ["input"],
    });
    expect(addNote.outputSchema).toMatchObject({
      type: "object",
      properties: { output: { type: "object", properties: { ok: { type: "boolean" } } } },
    });
    expect(JSON.stringify(tools)).not.toContain("recordCharge");
    expect(resolverCalls.some((call) => call.source === "mcp")).toBe(true);

    // The admin flow appears to its administrator only.
    const root = await served.connect({ authorization: `Bearer ${TOKENS.root}` });
    expect((await root.listTools()).tools.map((tool) => tool.name)).toContain("admin.purge");
    const anonymous = await served.connect();
    expect((await anonymous.listTools()).tools).toEqual([]);
  });

  it("a call without a sessionId creates a session, runs the action and answers its output as structured content", async () => {
    const ada = await served.connect(asAda);
    const result = await ada.callTool({
      name: "notebook.addNote",
      arguments: { input: { key: "first", title: "Hello" } },
    });
    expect(result.isError).toBeFalsy();
    const structured = result.structuredContent as { requestId: string; sessionId: string; output: unknown };
    expect(structured.output).toEqual({ ok: true, key: "first" });
    expect(JSON.parse((result.content as Array<{ text: string }>)[0]!.text)).toEqual(structured);

    const session = await stores.sessions.get(structured.sessionId);
    expect(session).toMatchObject({ userId: "ada", flowId: "notebook" });
    const request = await stores.requests.get(structured.requestId);
    expect(request).toMatchObject({ status: "completed", userId: "ada", sessionId: structured.sessionId });
    const api = await served.host.resourceApi(structured.sessionId, {
      source: "test",
      principal: { userId: "ada" },
    });
    expect((await api.listItems("notes")).items).toEqual([
      { topic: "notes/first", clientData: { title: "Hello" } },
    ]);

    // Naming the session again runs in it.
    const again = await ada.callTool({
      name: "notebook.addNote",
      arguments: { input: { key: "second", title: "Again" }, sessionId: structured.sessionId },
    });
    expect((again.structuredContent as { sessionId: string }).sessionId).toBe(structured.sessionId);
    expect(await sessionsOf("ada")).toHaveLength(1);
  });

  it("input the block refuses is a tool error the model can read, and nothing is written", async () => {
    const ada = await served.connect(asAda);
    const result = await ada.callTool({ name: "notebook.addNote", arguments: { input: { key: "" } } });
    expect(result.isError).toBe(true);
    expect((result.content as Array<{ text: string }>)[0]!.text).toMatch(/^invalid-input: /);
    expect(await sessionsOf("ada")).toEqual([]);
  });

  it("a call without credentials is refused (MCP error 401) and writes nothing", async () => {
    const anonymous = await served.connect();
    const error = await refusal(
      anonymous.callTool({ name: "notebook.addNote", arguments: { input: { key: "k", title: "t" } } }),
    );
    expect(error.code).toBe(401);
    expect(error.data).toMatchObject({ status: 401, code: "unauthorized" });
    expect((await stores.sessions.list({})).items).toEqual([]);
    expect(await stores.requests.listActive({})).toEqual([]);
  });

  it("a call naming another user's session is refused (MCP error 403) and writes nothing there", async () => {
    const bob = await served.connect(asBob);
    const bobs = (
      await bob.callTool({ name: "notebook.addNote", arguments: { input: { key: "mine", title: "Bob" } } })
    ).structuredContent as { sessionId: string; requestId: string };
    const before = await stores.requests.listBySession(bobs.sessionId, { limit: 100 });
    const eventsBefore = await stores.requests.readEvents(bobs.requestId);

    const ada = await served.connect(asAda);
    const error = await refusal(
      ada.callTool({
        name: "notebook.addNote",
        arguments: { input: { key: "intruder", title: "Ada" }, sessionId: bobs.sessionId },
      }),
    );
    expect(error.code).toBe(403);
    expect(error.data).toMatchObject({ status: 403 });

    expect(await stores.requests.listBySession(bobs.sessionId, { limit: 100 })).toEqual(before);
    expect(await stores.requests.readEvents(bobs.requestId)).toEqual(eventsBefore);
    const api = await served.host.resourceApi(bobs.sessionId, {
      source: "test",
      principal: { userId: "bob" },
    });
    expect((await api.listItems("notes")).items.map((item) => item.topic)).toEqual(["notes/mine"]);
    expect(await sessionsOf("ada")).toEqual([]);
  });

  it("a streaming generator reports progress from the run's events, its text deltas among them", async () => {
    const ada = await served.connect(asAda);
    const progress: Array<{ progress: number; message?: string }> = [];
    const result = await ada.callTool(
      { name: "notebook.tell", arguments: { input: { topic: "dragons" } } },
      undefined,
      { onprogress: (notification) => progress.push(notification) },
    );
    expect((result.structuredContent as { output: unknown }).output).toBe(DELTAS.join(""));
    const deltas = progress.filter((p) => p.message?.startsWith("text.delta: "));
    expect(deltas.map((p) => p.message)).toEqual(DELTAS.map((delta) => `text.delta: ${delta}`));
    expect(progress.map((p) => p.message)).toContain("block.started");
    // `progress` is the event's seq: it only grows.
    const values = progress.map((p) => p.progress);
    expect(values).toEqual([...values].sort((a, b) => a - b));
    expect(new Set(values).size).toBe(values.length);
  });

  it("cancelling a call aborts its request: the run sees its signal and the record ends aborted", async () => {
    const ada = await served.connect(asAda);
    const controller = new AbortController();
    let requestId: string | undefined;
    const call = ada.callTool({ name: "notebook.wait", arguments: { input: {} } }, undefined, {
      signal: controller.signal,
      onprogress: (notification) => {
        if (notification.message === "progress") controller.abort("enough");
      },
    });
    await expect(call).rejects.toThrow();
    await expect
      .poll(async () => {
        const active = await stores.requests.listByStatus(["aborted"]);
        requestId = active[0]?.id;
        return active.length;
      })
      .toBe(1);
    await expect.poll(() => waitOutcomes.get(requestId!)).toBe("aborted");
    const events = await stores.requests.readEvents(requestId!);
    expect(events.at(-1)?.type).toBe("request.aborted");
  });

  it("a tool of no flow is a protocol error", async () => {
    const ada = await served.connect(asAda);
    const error = await refusal(ada.callTool({ name: "notebook.nope", arguments: {} }));
    expect(error.message).toContain("Unknown tool");
  });
});
