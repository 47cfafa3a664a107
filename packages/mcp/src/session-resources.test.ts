import type { FlowStores } from "@flowrt/core";
import { createMemoryStores } from "@flowrt/store-memory";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { McpError } from "@modelcontextprotocol/sdk/types.js";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { mcpInbound } from "./mcp-inbound.js";
import { hostResolver, notebookHost, TOKENS } from "./testing/notebook-flows.js";
import { serveOverHttp } from "./testing/serve.js";

let stores: FlowStores;
let served: Awaited<ReturnType<typeof serveOverHttp>>;
let ada: Client;
let sessionId: string;

beforeEach(async () => {
  stores = createMemoryStores();
  served = await serveOverHttp(
    notebookHost(stores, { inbound: [mcpInbound()], resolvePrincipal: hostResolver }),
  );
  ada = await served.connect({ authorization: `Bearer ${TOKENS.ada}` });
  const result = await ada.callTool({
    name: "notebook.addNote",
    arguments: { input: { key: "first", title: "Hello" } },
  });
  sessionId = (result.structuredContent as { sessionId: string }).sessionId;
});

afterEach(async () => {
  await served.close();
});

const text = (result: { contents: ReadonlyArray<object> }) =>
  String((result.contents[0] as { text?: unknown } | undefined)?.text);

describe("session resources as MCP resources", () => {
  it("lists the caller's sessions with their snapshot and readable collections, and nobody else's", async () => {
    const { resources } = await ada.listResources();
    expect(resources.map((resource) => resource.uri)).toEqual([
      `flowrt://sessions/${sessionId}/state`,
      `flowrt://sessions/${sessionId}/resources/notes`,
    ]);
    const bob = await served.connect({ authorization: `Bearer ${TOKENS.bob}` });
    expect((await bob.listResources()).resources).toEqual([]);
    const templates = (await ada.listResourceTemplates()).resourceTemplates.map((t) => t.uriTemplate);
    expect(templates).toContain("flowrt://sessions/{sessionId}/resources/{ref}/{topic}");
  });

  it("reads the snapshot, a collection page and an item through the HTTP routes' projections", async () => {
    const state = JSON.parse(text(await ada.readResource({ uri: `flowrt://sessions/${sessionId}/state` })));
    expect(state.clientData.session).toEqual({ added: 1 });
    expect(state.resources.session.notes).toEqual({ count: 1 });

    const page = JSON.parse(
      text(await ada.readResource({ uri: `flowrt://sessions/${sessionId}/resources/notes?limit=10` })),
    );
    expect(page.items).toEqual([{ topic: "notes/first", clientData: { title: "Hello" } }]);
    expect(page.pagination).toMatchObject({ limit: 10, total: 1 });

    const item = JSON.parse(
      text(await ada.readResource({ uri: `flowrt://sessions/${sessionId}/resources/notes/notes%2Ffirst` })),
    );
    expect(item).toEqual({ topic: "notes/first", clientData: { title: "Hello" } });
    // No content row: no contents, as HTTP answers `{ content: null }`.
    const content = await ada.readResource({
      uri: `flowrt://sessions/${sessionId}/resources/notes/notes%2Ffirst/content`,
    });
    expect(content.contents).toEqual([]);
  });

  it("refuses another user's session (403) and a caller without credentials (401)", async () => {
    const bob = await served.connect({ authorization: `Bearer ${TOKENS.bob}` });
    const forbidden = await bob.readResource({ uri: `flowrt://sessions/${sessionId}/state` }).catch((e) => e);
    expect(forbidden).toBeInstanceOf(McpError);
    expect((forbidden as McpError).code).toBe(403);
    const anonymous = await served.connect();
    const unauthorized = await anonymous
      .readResource({ uri: `flowrt://sessions/${sessionId}/resources/notes` })
      .catch((e) => e);
    expect((unauthorized as McpError).code).toBe(401);
  });

  it("an unknown session or URI is MCP's resource-not-found (-32002)", async () => {
    const missing = await ada.readResource({ uri: "flowrt://sessions/nope/state" }).catch((e) => e);
    expect((missing as McpError).code).toBe(-32002);
    const unknown = await ada.readResource({ uri: "flowrt://elsewhere/x" }).catch((e) => e);
    expect((unknown as McpError).code).toBe(-32002);
  });
});
