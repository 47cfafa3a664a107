import { afterEach, describe, expect, it } from "vitest";
import { createFlowClient } from "./client.js";
import { FlowClientError } from "./errors.js";
import {
  type RecordedRequest,
  sendJson,
  sendProblem,
  startTestServer,
  type TestServer,
} from "./testing/test-server.js";

/** Rename, delete, a session's request history, and the listings' cursor pages, against a recording server. */

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const session = {
  id: "s/1",
  flowId: "notebook",
  flowKind: "notebook",
  userId: "u1",
  title: "New",
  metadata: { a: 1 },
  createdAt: "2026-01-01T00:00:00.000Z",
};
const removed = { sessions: 2, requests: 3, events: 9, states: 2, resources: 4, contents: 4 };

/** Answers `METHOD url` from `routes`, else 404 `not-found`. */
async function serve(routes: Record<string, (req: RecordedRequest) => [number, unknown]>) {
  server = await startTestServer((req, res) => {
    const route = routes[`${req.method} ${req.url}`];
    if (!route) return sendProblem(res, 404, "session-not-found", `No session at ${req.url}.`);
    const [status, body] = route(req);
    sendJson(res, status, body);
  });
  return { server, client: createFlowClient({ baseUrl: server.baseUrl }) };
}

describe("session lifecycle", () => {
  it("renameSession and updateSession send PATCH /sessions/:id with a JSON body and unwrap { session }", async () => {
    const { server: s, client } = await serve({
      "PATCH /api/flows/sessions/s%2F1": () => [200, { session }],
    });
    expect(await client.renameSession("s/1", "New")).toEqual(session);
    expect(await client.renameSession("s/1", null)).toEqual(session);
    expect(await client.updateSession("s/1", { metadata: { a: 1, gone: null } })).toEqual(session);
    const bodies = s.requests.map((r) => JSON.parse(r.body));
    expect(bodies).toEqual([{ title: "New" }, { title: null }, { metadata: { a: 1, gone: null } }]);
    for (const r of s.requests) expect(r.headers["content-type"]).toBe("application/json");
  });

  it("deleteSession sends DELETE without a body and answers the counts; a second one rejects with 404", async () => {
    let deleted = false;
    const { server: s, client } = await serve({
      "DELETE /api/flows/sessions/s%2F1": () => {
        if (deleted) return [404, { code: "session-not-found" }];
        deleted = true;
        return [200, { removed }];
      },
    });
    expect(await client.deleteSession("s/1")).toEqual(removed);
    expect(s.requests[0]!.body).toBe("");
    expect(s.requests[0]!.headers["content-type"]).toBeUndefined();
    const error = await client.deleteSession("s/1").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(FlowClientError);
    expect((error as FlowClientError).status).toBe(404);
  });

  it("listSessionRequests pages by limit and cursor", async () => {
    const rows = [
      { requestId: "r2", status: "failed", action: "a", createdAt: "t", error: { code: "boom" } },
    ];
    const { server: s, client } = await serve({
      "GET /api/flows/sessions/s%2F1/requests": () => [200, { requests: rows, nextCursor: "c1" }],
      "GET /api/flows/sessions/s%2F1/requests?limit=1&cursor=c1": () => [
        200,
        { requests: [], nextCursor: null },
      ],
    });
    expect(await client.listSessionRequests("s/1")).toEqual({ requests: rows, nextCursor: "c1" });
    expect(await client.listSessionRequests("s/1", { limit: 1, cursor: "c1" })).toEqual({
      requests: [],
      nextCursor: null,
    });
    expect(s.requests.map((r) => r.url)).toEqual([
      "/api/flows/sessions/s%2F1/requests",
      "/api/flows/sessions/s%2F1/requests?limit=1&cursor=c1",
    ]);
  });

  it("the listings take limit and cursor; the page methods answer nextCursor (none from an older server is null)", async () => {
    const active = {
      requestId: "r1",
      sessionId: "s1",
      flowId: "f",
      userId: "u1",
      action: "a",
      startedAt: "t",
    };
    const { client } = await serve({
      "GET /api/flows/sessions?userId=u1&limit=1": () => [200, { sessions: [session], nextCursor: "n1" }],
      "GET /api/flows/sessions?limit=1&cursor=n1": () => [200, { sessions: [] }],
      "GET /api/flows/active-requests?limit=5&cursor=a": () => [
        200,
        { requests: [active], nextCursor: null },
      ],
      "GET /api/flows/active-requests": () => [200, { requests: [active], nextCursor: 7 }],
    });
    expect(await client.listSessionsPage({ userId: "u1", limit: 1 })).toEqual({
      sessions: [session],
      nextCursor: "n1",
    });
    expect(await client.listSessions({ userId: "u1", limit: 1 })).toEqual([session]);
    expect(await client.listSessionsPage({ limit: 1, cursor: "n1" })).toEqual({
      sessions: [],
      nextCursor: null,
    });
    expect(await client.activeRequestsPage({ limit: 5, cursor: "a" })).toEqual({
      requests: [active],
      nextCursor: null,
    });
    expect(await client.activeRequests({ limit: 5, cursor: "a" })).toEqual([active]);
    // A nextCursor that is neither a string nor null is no page this client can follow.
    const error = await client.activeRequestsPage().catch((e: unknown) => e);
    expect(error).toMatchObject({ code: "invalid-response" });
  });

  it("refuses an empty session id before sending anything", async () => {
    const { server: s, client } = await serve({});
    await expect(client.deleteSession("")).rejects.toThrow(TypeError);
    await expect(client.renameSession("", "x")).rejects.toThrow(TypeError);
    await expect(client.listSessionRequests("")).rejects.toThrow(TypeError);
    expect(s.requests).toEqual([]);
  });
});
