import type { FlowStores } from "@flowrt/core";
import { createMemoryStores } from "@flowrt/store-memory";
import { afterEach, describe, expect, it } from "vitest";
import { type McpInboundOptions, mcpInbound } from "./mcp-inbound.js";
import { notebookHost, TOKENS } from "./testing/notebook-flows.js";
import { serveOverHttp } from "./testing/serve.js";

const asAda = { authorization: `Bearer ${TOKENS.ada}` };
let served: Awaited<ReturnType<typeof serveOverHttp>> | undefined;

afterEach(async () => {
  await served?.close();
  served = undefined;
});

let stores: FlowStores;

const serve = async (options: McpInboundOptions) => {
  stores = createMemoryStores();
  served = await serveOverHttp(notebookHost(stores, { inbound: [mcpInbound(options)] }));
  return served;
};

/** A raw JSON-RPC POST to the endpoint, as a client without the SDK would send it. */
function post(url: string, body: unknown, headers: Record<string, string> = {}) {
  return fetch(url, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      ...headers,
    },
    body: JSON.stringify(body),
  });
}

const initialize = {
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "1" } },
};

describe("MCP sessions of the HTTP endpoint", () => {
  it("answers 404 for a session it does not know, and 400 for a request without one that is not initialize", async () => {
    const { url } = await serve({});
    const unknown = await post(
      url,
      { jsonrpc: "2.0", id: 2, method: "tools/list" },
      { "mcp-session-id": "nope" },
    );
    expect(unknown.status).toBe(404);
    const get = await fetch(url, { headers: { accept: "text/event-stream" } });
    expect(get.status).toBe(400);
    const notInit = await post(url, { jsonrpc: "2.0", id: 2, method: "tools/list" });
    expect(notInit.status).toBe(400);
  });

  it("ends a session on DELETE: its id is then unknown (404)", async () => {
    const { url } = await serve({});
    const opened = await post(url, initialize);
    const sessionId = opened.headers.get("mcp-session-id");
    expect(sessionId).toEqual(expect.any(String));
    await opened.body?.cancel();
    const ended = await fetch(url, { method: "DELETE", headers: { "mcp-session-id": sessionId! } });
    expect(ended.status).toBe(200);
    const after = await post(
      url,
      { jsonrpc: "2.0", id: 2, method: "tools/list" },
      { "mcp-session-id": sessionId! },
    );
    expect(after.status).toBe(404);
  });

  it("refuses an initialize past maxSessions with 503 and Retry-After", async () => {
    const { url, connect } = await serve({ maxSessions: 1 });
    await connect(asAda);
    const refused = await post(url, initialize);
    expect(refused.status).toBe(503);
    expect(refused.headers.get("retry-after")).toBe("60");
  });

  it("closes a session idle past sessionIdleMs", async () => {
    const { connect } = await serve({ sessionIdleMs: 150 });
    const ada = await connect(asAda);
    expect((await ada.listTools()).tools.length).toBeGreaterThan(0);
    await new Promise((resolve) => setTimeout(resolve, 400));
    await expect(ada.listTools()).rejects.toThrow(/404|Session not found/);
  });

  it("serves at another path and tool names with another separator when told", async () => {
    const { url, connect } = await serve({ path: "/tools/mcp", toolNameSeparator: "__" });
    const ada = await connect(asAda, url.replace(/\/mcp$/, "/tools/mcp"));
    expect((await ada.listTools()).tools.map((tool) => tool.name)).toEqual([
      "notebook__addNote",
      "notebook__tell",
      "notebook__wait",
    ]);
    const result = await ada.callTool({
      name: "notebook__addNote",
      arguments: { input: { key: "k", title: "t" } },
    });
    expect(result.isError).toBeFalsy();
    // Nothing is served at the default path.
    expect((await post(url, initialize)).status).toBe(404);
  });

  it("a cancellation aborts the run only with credentials of its owner: a session id alone stops nothing", async () => {
    const { url, host } = await serve({});
    const opened = await post(url, initialize, asAda);
    const session = { "mcp-session-id": opened.headers.get("mcp-session-id")! };
    await opened.body?.cancel();
    await post(url, { jsonrpc: "2.0", method: "notifications/initialized" }, { ...asAda, ...session });
    const call = {
      jsonrpc: "2.0",
      method: "tools/call",
      params: { name: "notebook.wait", arguments: { input: {} } },
    };
    const cancel = (id: number) => ({
      jsonrpc: "2.0",
      method: "notifications/cancelled",
      params: { requestId: id },
    });

    const first = await post(url, { ...call, id: 7 }, { ...asAda, ...session });
    await expect.poll(async () => (await stores.requests.listByStatus(["running"])).length).toBe(1);
    expect((await post(url, cancel(7), session)).status).toBe(202);
    const second = await post(url, { ...call, id: 8 }, { ...asAda, ...session });
    await expect.poll(async () => (await stores.requests.listByStatus(["running"])).length).toBe(2);
    expect((await post(url, cancel(8), { authorization: `Bearer ${TOKENS.bob}`, ...session })).status).toBe(
      202,
    );
    await new Promise((resolve) => setTimeout(resolve, 300));
    const running = await stores.requests.listByStatus(["running"]);
    expect(running).toHaveLength(2);
    expect(await stores.requests.listByStatus(["aborted"])).toEqual([]);

    const third = await post(url, { ...call, id: 9 }, { ...asAda, ...session });
    await expect.poll(async () => (await stores.requests.listByStatus(["running"])).length).toBe(3);
    expect((await post(url, cancel(9), { ...asAda, ...session })).status).toBe(202);
    await expect.poll(async () => (await stores.requests.listByStatus(["aborted"])).length).toBe(1);

    for (const request of running)
      await host.abortRequest(request.id, { source: "test", principal: { userId: "ada" } });
    await Promise.all([first, second, third].map((response) => response.body?.cancel()));
  });
});
