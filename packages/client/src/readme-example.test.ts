import { readFileSync } from "node:fs";
import { afterEach, expect, it } from "vitest";
import { addNote } from "./testing/readme-example.js";
import {
  eventLog,
  formatEvent,
  sendJson,
  sendProblem,
  startEventStream,
  startTestServer,
  type TestServer,
} from "./testing/test-server.js";

let server: TestServer | undefined;

afterEach(async () => {
  await server?.close();
  server = undefined;
});

it("the README shows the example file verbatim", () => {
  const readme = readFileSync(new URL("../README.md", import.meta.url), "utf8");
  const example = readFileSync(new URL("./testing/readme-example.ts", import.meta.url), "utf8");
  expect(readme).toContain(example.trim());
});

it("the README example runs against a server speaking the documented wire format", async () => {
  const log = eventLog("r1", 3);
  log[0] = {
    ...log[0]!,
    type: "resource_change",
    data: { scope: "session", ref: "notes", kind: "collection", topic: "notes/todo-1", change: "created" },
  };
  log[1] = { ...log[1]!, type: "state_change", data: { scope: "session", clientData: { added: 1 } } };
  server = await startTestServer((req, res) => {
    const route = `${req.method} ${req.url}`;
    if (route === "POST /api/flows/notebook/sessions") {
      return sendJson(res, 201, {
        session: {
          id: "s1",
          flowId: "notebook",
          flowKind: "notebook",
          userId: "u1",
          metadata: {},
          createdAt: log[0]!.at,
        },
      });
    }
    if (route === "POST /api/flows/notebook/actions/addNote")
      return sendJson(res, 202, { requestId: "r1", sessionId: "s1" });
    if (route === "GET /api/flows/requests/r1/stream") {
      startEventStream(res);
      for (const event of log) res.write(formatEvent(event));
      return res.end();
    }
    if (route === "GET /api/flows/sessions/s1/state")
      return sendJson(res, 200, { clientData: { session: { added: 1 } }, resources: {} });
    if (route === "GET /api/flows/sessions/s1/resources/notes?limit=20") {
      return sendJson(res, 200, {
        items: [{ topic: "notes/todo-1", clientData: { title: "Buy milk" } }],
        pagination: { offset: 0, limit: 20, total: 1, hasMore: false, nextOffset: null },
      });
    }
    if (route === "POST /api/flows/sessions/s1/resources/notes") {
      return sendProblem(res, 409, "topic-exists", 'Topic "notes/todo-1" already exists.');
    }
    sendProblem(res, 404, "not-found", `Nothing is served at ${route}.`);
  });
  const lines: string[] = [];
  let tokens = 0;
  await addNote({
    baseUrl: server.baseUrl,
    getToken: async () => `t${++tokens}`,
    show: (line) => lines.push(line),
    title: "Buy milk",
  });
  expect(lines).toEqual([
    "notes notes/todo-1 created",
    'session state {"added":1}',
    "notes added: 1",
    "notes/todo-1: Buy milk",
    'not created: Topic "notes/todo-1" already exists.',
  ]);
  expect(server.requests.map((r) => r.headers.authorization)).toEqual([
    "Bearer t1",
    "Bearer t2",
    "Bearer t3",
    "Bearer t4",
    "Bearer t5",
    "Bearer t6",
  ]);
  expect(JSON.parse(server.requests[1]!.body)).toEqual({
    sessionId: "s1",
    input: { key: "todo-1", title: "Buy milk" },
  });
});
