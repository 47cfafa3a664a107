import { afterEach, describe, expect, it } from "vitest";
import { createFlowClient } from "./client.js";
import { FlowClientError, isFlowClientError } from "./errors.js";
import {
  type RecordedRequest,
  sendJson,
  sendProblem,
  startTestServer,
  type TestServer,
} from "./testing/test-server.js";

let server: TestServer | undefined;

afterEach(async () => {
  await server?.close();
  server = undefined;
});

const session = {
  id: "s1",
  flowId: "notebook",
  flowKind: "notebook",
  userId: "u1",
  metadata: {},
  createdAt: "2026-01-01T00:00:00.000Z",
};

/** A server answering `{ echo: <method> <url> }` unless `routes` has an answer for `METHOD url`. */
async function serve(routes: Record<string, (req: RecordedRequest) => [number, unknown]> = {}) {
  server = await startTestServer((req, res) => {
    const route = routes[`${req.method} ${req.url}`];
    if (route) {
      const [status, body] = route(req);
      return sendJson(res, status, body);
    }
    sendJson(res, 200, { echo: `${req.method} ${req.url}` });
  });
  return server;
}

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error("expected a rejection");
}

describe("routes and bodies", () => {
  it("sends each method to its documented route and unwraps the answer", async () => {
    const s = await serve({
      "GET /api/flows/": () => [
        200,
        {
          flows: [
            { flowId: "notebook", kind: "notebook", actions: ["addNote"], webhooks: [], requiresAuth: false },
          ],
        },
      ],
      "POST /api/flows/notebook/sessions": () => [201, { session }],
      "GET /api/flows/sessions/s1": () => [200, { session }],
      "GET /api/flows/sessions?userId=u1": () => [200, { sessions: [session] }],
      "GET /api/flows/sessions/s1/children": () => [200, { sessions: [] }],
      "GET /api/flows/sessions/s1/manifest": () => [200, { flowKind: "notebook", resources: [] }],
      "GET /api/flows/sessions/s1/state": () => [
        200,
        { clientData: { session: { added: 1 } }, resources: {} },
      ],
      "POST /api/flows/notebook/actions/addNote": () => [202, { requestId: "r1", sessionId: "s1" }],
      "GET /api/flows/requests/r1": () => [
        200,
        { request: { id: "r1", status: "completed", output: { ok: true } } },
      ],
      "POST /api/flows/requests/r1/abort": () => [202, { status: "aborted" }],
      "POST /api/flows/requests/r1/retry": () => [202, { requestId: "r2", sessionId: "s1" }],
      "GET /api/flows/active-requests": () => [200, { requests: [] }],
    });
    const client = createFlowClient({ baseUrl: s.baseUrl });
    expect((await client.listFlows())[0]!.flowId).toBe("notebook");
    expect(await client.createSession("notebook", { title: "T", userId: "u1" })).toEqual(session);
    expect(await client.getSession("s1")).toEqual(session);
    expect(await client.listSessions({ userId: "u1" })).toEqual([session]);
    expect(await client.children("s1")).toEqual([]);
    expect(await client.manifest("s1")).toEqual({ flowKind: "notebook", resources: [] });
    expect((await client.snapshot("s1")).clientData.session).toEqual({ added: 1 });
    expect(await client.invoke("notebook", "addNote", { input: { key: "a" }, sessionId: "s1" })).toEqual({
      requestId: "r1",
      sessionId: "s1",
    });
    expect((await client.getRequest<{ ok: boolean }>("r1")).output).toEqual({ ok: true });
    expect(await client.abort("r1")).toEqual({ status: "aborted" });
    expect(await client.retry("r1")).toEqual({ requestId: "r2", sessionId: "s1" });
    expect(await client.activeRequests()).toEqual([]);

    const create = s.requests.find((r) => r.url === "/api/flows/notebook/sessions")!;
    expect(create.headers["content-type"]).toBe("application/json");
    expect(JSON.parse(create.body)).toEqual({ title: "T", userId: "u1" });
    const invoke = s.requests.find((r) => r.url.includes("/actions/"))!;
    expect(JSON.parse(invoke.body)).toEqual({ input: { key: "a" }, sessionId: "s1" });
    // Without a resolver the server reads body.userId on every action call, existing session or not.
    await client.invoke("notebook", "addNote", { input: { key: "b" }, sessionId: "s1", userId: "u1" });
    const named = s.requests.filter((r) => r.url.includes("/actions/")).at(-1)!;
    expect(JSON.parse(named.body)).toEqual({ input: { key: "b" }, sessionId: "s1", userId: "u1" });
    const abort = s.requests.find((r) => r.url.endsWith("/abort"))!;
    expect(abort.body).toBe("");
    expect(abort.headers["content-type"]).toBeUndefined();
  });

  it("honours basePath and a trailing slash on baseUrl, and encodes every id as one segment", async () => {
    const s = await serve();
    const client = createFlowClient({ baseUrl: `${s.baseUrl}/`, basePath: "flows/" });
    await expect(client.getRequest("a/b?c#d")).rejects.toMatchObject({ code: "invalid-response" });
    expect(s.requests[0]!.url).toBe("/flows/requests/a%2Fb%3Fc%23d");
  });

  it("refuses an empty id before anything is sent", async () => {
    const s = await serve();
    const client = createFlowClient({ baseUrl: s.baseUrl });
    await expect(client.getSession("")).rejects.toThrow(TypeError);
    expect(() => client.resources("", "notes")).toThrow(TypeError);
    expect(() => client.events("")).toThrow(TypeError);
    expect(s.requests).toHaveLength(0);
  });
});

describe("resource endpoints", () => {
  it("sends topics containing / as %2F on item state, content, patch and delete", async () => {
    const s = await serve({
      "GET /api/flows/sessions/s1/resources/files/src%2Futils.ts": () => [
        200,
        { topic: "src/utils.ts", clientData: { size: 3 } },
      ],
    });
    const files = createFlowClient({ baseUrl: s.baseUrl }).resources<{ size: number }>("s1", "files");
    const item = files.item("src/utils.ts");
    expect(await item.state()).toEqual({ topic: "src/utils.ts", clientData: { size: 3 } });
    await item.content();
    await item.patchContent("new body");
    await item.delete();
    expect(s.requests.map((r) => `${r.method} ${r.url}`)).toEqual([
      "GET /api/flows/sessions/s1/resources/files/src%2Futils.ts",
      "GET /api/flows/sessions/s1/resources/files/src%2Futils.ts/content",
      "PATCH /api/flows/sessions/s1/resources/files/src%2Futils.ts/content",
      "DELETE /api/flows/sessions/s1/resources/files/src%2Futils.ts",
    ]);
    expect(JSON.parse(s.requests[2]!.body)).toEqual({ content: "new body" });
  });

  it("lists with only the query parameters given, and creates with a JSON body", async () => {
    const s = await serve({
      "POST /api/flows/sessions/s1/resources/files": () => [201, { topic: "docs/a.md" }],
    });
    const files = createFlowClient({ baseUrl: s.baseUrl }).resources("s1", "files");
    await files.list({ limit: 10, topicPrefix: "files/docs/" });
    await files.list();
    await files.list({ cursor: "c 2", offset: 0 });
    await files.content();
    expect(await files.create({ topic: "docs/a.md", content: "# A" })).toEqual({ topic: "docs/a.md" });
    expect(s.requests.map((r) => r.url)).toEqual([
      "/api/flows/sessions/s1/resources/files?limit=10&topicPrefix=files%2Fdocs%2F",
      "/api/flows/sessions/s1/resources/files",
      "/api/flows/sessions/s1/resources/files?offset=0&cursor=c+2",
      "/api/flows/sessions/s1/resources/files/content",
      "/api/flows/sessions/s1/resources/files",
    ]);
    expect(JSON.parse(s.requests[4]!.body)).toEqual({ topic: "docs/a.md", content: "# A" });
  });

  it("refuses the item state of a topic named content (shadowed by /:ref/content) without sending", async () => {
    const s = await serve();
    const item = createFlowClient({ baseUrl: s.baseUrl }).resources("s1", "files").item("content");
    await expect(item.state()).rejects.toThrow(/shadows/);
    expect(s.requests).toHaveLength(0);
    await item.content();
    expect(s.requests[0]!.url).toBe("/api/flows/sessions/s1/resources/files/content/content");
  });

  it("refuses a create without a topic or with non-string content, and sends nothing", async () => {
    const s = await serve();
    const files = createFlowClient({ baseUrl: s.baseUrl }).resources("s1", "files");
    await expect(files.create({ topic: "" })).rejects.toThrow(TypeError);
    await expect(files.create({ topic: "a", content: 3 as unknown as string })).rejects.toThrow(TypeError);
    await expect(files.item("a").patchContent(null as unknown as string)).rejects.toThrow(TypeError);
    expect(s.requests).toHaveLength(0);
  });
});

describe("errors", () => {
  it("turns a problem+json answer into a FlowClientError with its fields and extensions", async () => {
    server = await startTestServer((_req, res) =>
      sendProblem(res, 409, "topic-exists", 'Topic "a" already exists.', { field: "topic" }),
    );
    const client = createFlowClient({ baseUrl: server.baseUrl });
    const error = await rejection(client.resources("s1", "files").create({ topic: "a" }));
    expect(error).toBeInstanceOf(FlowClientError);
    expect(error).toMatchObject({
      name: "FlowClientError",
      status: 409,
      code: "topic-exists",
      title: "Conflict",
      detail: 'Topic "a" already exists.',
      message: 'Topic "a" already exists.',
    });
    expect((error as FlowClientError).problem?.field).toBe("topic");
  });

  it("falls back to the status line and body text for a non-JSON answer", async () => {
    server = await startTestServer((_req, res) => {
      res.writeHead(502, "Bad Gateway", { "content-type": "text/html" });
      res.end("<h1>upstream down</h1>");
    });
    const error = await rejection(createFlowClient({ baseUrl: server.baseUrl }).listFlows());
    expect(error).toMatchObject({
      status: 502,
      code: "unexpected-response",
      title: "Bad Gateway",
      detail: "<h1>upstream down</h1>",
    });
  });

  it("falls back for a JSON error body without a code, and for an empty one", async () => {
    let n = 0;
    server = await startTestServer((_req, res) => {
      if (n++ === 0) return sendJson(res, 400, { error: "nope" });
      res.writeHead(500);
      res.end();
    });
    const client = createFlowClient({ baseUrl: server.baseUrl });
    expect(await rejection(client.listFlows())).toMatchObject({
      status: 400,
      code: "unexpected-response",
      detail: '{"error":"nope"}',
    });
    const empty = await rejection(client.listFlows());
    expect(empty).toMatchObject({ status: 500, code: "unexpected-response" });
    expect((empty as FlowClientError).detail).toMatch(/500/);
  });

  it("reports a 2xx answer that is not JSON, or lacks the promised field, as invalid-response", async () => {
    let n = 0;
    server = await startTestServer((_req, res) => {
      if (n++ === 0) {
        res.writeHead(200, { "content-type": "text/plain" });
        return res.end("hello");
      }
      sendJson(res, 200, { nothing: true });
    });
    const client = createFlowClient({ baseUrl: server.baseUrl });
    expect(await rejection(client.listFlows())).toMatchObject({ status: 200, code: "invalid-response" });
    expect(await rejection(client.getSession("s1"))).toMatchObject({ code: "invalid-response" });
  });

  it("an invalid-response carries the answer's own status; action, abort and retry answers are checked too", async () => {
    server = await startTestServer((req, res) => {
      if (req.url?.endsWith("/stream")) {
        res.writeHead(204);
        return res.end();
      }
      sendJson(res, req.method === "POST" && req.url?.endsWith("/sessions") ? 201 : 202, {});
    });
    const client = createFlowClient({ baseUrl: server.baseUrl });
    expect(await rejection(client.createSession("f"))).toMatchObject({
      status: 201,
      code: "invalid-response",
    });
    for (const call of [
      () => client.invoke("f", "a", { input: null }),
      () => client.abort("r1"),
      () => client.retry("r1"),
    ]) {
      expect(await rejection(call())).toMatchObject({ status: 202, code: "invalid-response" });
    }
    const streamed = await client.invokeAndStream("f", "a", { input: null }).catch((e: unknown) => e);
    expect(streamed).toMatchObject({ status: 202, code: "invalid-response" });
    const events = client.events("r1", { maxRetries: 0 });
    expect(await rejection(events.next())).toMatchObject({ status: 204, code: "invalid-response" });
  });

  it("reports a refused connection as network-error with status 0", async () => {
    const s = await serve();
    const baseUrl = s.baseUrl;
    await s.close();
    server = undefined;
    const error = await rejection(createFlowClient({ baseUrl }).listFlows());
    expect(error).toMatchObject({ status: 0, code: "network-error" });
    expect((error as Error).cause).toBeDefined();
  });

  it("rejects with AbortError, not FlowClientError, when the caller aborts", async () => {
    server = await startTestServer(() => {
      // Never answers.
    });
    const controller = new AbortController();
    const pending = createFlowClient({ baseUrl: server.baseUrl }).listFlows({ signal: controller.signal });
    controller.abort();
    const error = await rejection(pending);
    expect((error as Error).name).toBe("AbortError");
    expect(isFlowClientError(error)).toBe(false);
  });

  it("recognises a FlowClientError by its brand, not its class", () => {
    const foreign = Object.assign(new Error("x"), {
      code: "topic-exists",
      [Symbol.for("flowrt.client-error")]: true,
    });
    expect(isFlowClientError(foreign)).toBe(true);
    expect(isFlowClientError(Object.assign(new Error("x"), { code: "topic-exists" }))).toBe(false);
    expect(
      isFlowClientError(new FlowClientError({ status: 0, code: "network-error", title: "t", detail: "d" })),
    ).toBe(true);
  });
});

describe("headers and fetch", () => {
  it("calls a headers function before every request and lets per-call headers win", async () => {
    const s = await serve();
    let calls = 0;
    const client = createFlowClient({
      baseUrl: s.baseUrl,
      headers: async () => ({ authorization: `Bearer token-${++calls}`, "x-tenant": "t1" }),
    });
    await client.invoke("notebook", "addNote", { input: {} }).catch(() => {});
    await client.getRequest("r1").catch(() => {});
    await client.getSession("s1", { headers: { "x-tenant": "t2" } }).catch(() => {});
    expect(calls).toBe(3);
    expect(s.requests.map((r) => r.headers.authorization)).toEqual([
      "Bearer token-1",
      "Bearer token-2",
      "Bearer token-3",
    ]);
    expect(s.requests.map((r) => r.headers["x-tenant"])).toEqual(["t1", "t1", "t2"]);
    expect(s.requests[0]!.headers.accept).toBe("application/json");
  });

  it("sends static headers and uses an injected fetch", async () => {
    const s = await serve({ "GET /api/flows/": () => [200, { flows: [] }] });
    const seen: string[] = [];
    const client = createFlowClient({
      baseUrl: s.baseUrl,
      headers: { authorization: "Bearer static" },
      fetch: (input, init) => {
        seen.push(`${init?.method} ${input}`);
        return fetch(input, init);
      },
    });
    expect(await client.listFlows()).toEqual([]);
    expect(seen).toEqual([`GET ${s.baseUrl}/api/flows/`]);
    expect(s.requests[0]!.headers.authorization).toBe("Bearer static");
  });

  it("surfaces a failing headers function as the call's rejection, without sending", async () => {
    const s = await serve();
    const client = createFlowClient({
      baseUrl: s.baseUrl,
      headers: () => {
        throw new Error("not signed in");
      },
    });
    await expect(client.listFlows()).rejects.toThrow("not signed in");
    expect(s.requests).toHaveLength(0);
  });
});
