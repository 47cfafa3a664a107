import { request as httpRequest } from "node:http";
import fc from "fast-check";
import request from "supertest";
import { afterAll, beforeAll, expect, test } from "vitest";
import { notebook } from "./testing/fixture-flows.js";
import { type Served, serve } from "./testing/serve.js";
import { inbox, signedProvider } from "./testing/webhook-flow.js";

const BODY_LIMIT = 4096;
let served: Served;
let sessionId: string;
let requestId: string;

beforeAll(async () => {
  served = await serve([notebook, inbox], {
    router: { bodyLimit: BODY_LIMIT, heartbeatMs: 50 },
    host: { webhookProviders: { signed: signedProvider } },
  });
  const session = await request(served.url)
    .post("/api/flows/notebook/sessions")
    .send({ userId: "u1" })
    .expect(201);
  sessionId = session.body.session.id;
  const invoked = await request(served.url)
    .post("/api/flows/notebook/actions/addNote")
    .send({ sessionId, userId: "u1", input: { key: "a", title: "A" } })
    .expect(202);
  requestId = invoked.body.requestId;
});

afterAll(async () => {
  await served?.close();
});

interface Sent {
  status: number;
  contentType: string | undefined;
}

/** Sends one request with Node's client (which allows what `fetch` refuses) and reads the status. */
function send(method: string, path: string, headers: Record<string, string>, body: Uint8Array | undefined) {
  return new Promise<Sent>((resolve, reject) => {
    // Node sends a GET or DELETE body without framing unless told its length.
    const framing = body ? { "content-length": String(body.byteLength) } : {};
    const req = httpRequest(`${served.url}${path}`, { method, headers: { ...headers, ...framing } });
    req.setTimeout(5_000, () => req.destroy(new Error(`no answer to ${method} ${path}`)));
    req.on("error", reject);
    req.on("response", (res) => {
      const sent = { status: res.statusCode ?? 0, contentType: res.headers["content-type"] };
      // An event stream may stay open: the status line is all this test needs.
      if (sent.contentType?.startsWith("text/event-stream")) {
        res.destroy();
        resolve(sent);
        return;
      }
      res.resume();
      res.on("end", () => resolve(sent));
      res.on("error", reject);
    });
    req.end(body);
  });
}

const segment = fc.oneof(
  fc.constantFrom(
    "sessions",
    "resources",
    "notes",
    "content",
    "state",
    "manifest",
    "children",
    "debug",
    "requests",
    "stream",
    "abort",
    "retry",
    "actions",
    "addNote",
    "notebook",
    "inbox",
    "webhooks",
    "signed",
    "openapi.json",
    "active-requests",
    "..",
    ".",
    "",
    "%",
    "%zz",
    "%2F",
    "%00",
    "%E0%A4%A",
    "%C0%AF",
    "notes%2F..%2F..%2Fetc",
    "a%2Fb%2F%2E%2E",
  ),
  fc.constant("SESSION"),
  fc.constant("REQUEST"),
  fc.stringMatching(/^[A-Za-z0-9._~!$&'()*+,;=:@%-]{0,40}$/),
  fc.integer({ min: 300, max: 9000 }).map((n) => "x".repeat(n)),
);

const query = fc.oneof(
  fc.stringMatching(/^[A-Za-z0-9=&%._~+-]{0,60}$/),
  fc
    .tuple(fc.constantFrom("limit", "offset", "topicPrefix", "cursor", "after", "userId", "flowId"), segment)
    .map(([name, value]) => `${name}=${value}`),
);

// Real routes with fuzzed parameters reach the deeper handlers; free-form paths probe the router.
const template = fc.constantFrom(
  "/sessions/SESSION/resources/notes/P",
  "/sessions/SESSION/resources/notes/P/content",
  "/sessions/SESSION/resources/P",
  "/sessions/SESSION/resources/P/content",
  "/sessions/P",
  "/sessions/P/state",
  "/sessions/P/manifest",
  "/sessions/P/children",
  "/sessions/P/debug",
  "/requests/P",
  "/requests/P/stream",
  "/requests/REQUEST/stream",
  "/requests/P/abort",
  "/requests/REQUEST/retry",
  "/P/sessions",
  "/notebook/actions/P",
  "/notebook/actions/addNote",
  "/notebook/sessions",
  "/P/webhooks/signed",
  "/inbox/webhooks/P",
  "/inbox/webhooks/signed",
);

const path = fc
  .tuple(
    fc.oneof(
      fc.array(segment, { maxLength: 8 }).map((parts) => `/${parts.join("/")}`),
      fc.tuple(template, segment).map(([route, param]) => route.replace("P", param)),
    ),
    query,
  )
  .map(([route, q]) => {
    const filled = route.replaceAll("SESSION", sessionId).replaceAll("REQUEST", requestId);
    return `/api/flows${filled}${q ? `?${q}` : ""}`;
  });

const headerValue = fc.stringMatching(/^[\x20-\x7e]{0,80}$/);
const headers = fc.record(
  {
    "content-type": fc.oneof(
      fc.constantFrom(
        "application/json",
        "text/plain",
        "application/octet-stream",
        "application/json; charset=latin1",
      ),
      headerValue,
    ),
    accept: fc.constantFrom("text/event-stream", "application/json", "*/*"),
    "last-event-id": headerValue,
    "x-signature": headerValue,
    cookie: headerValue,
    "x-anything": headerValue,
  },
  { requiredKeys: [] },
);

const encoder = new TextEncoder();
const body = fc
  .oneof(
    fc.constant(undefined),
    fc.json().map((text) => encoder.encode(text)),
    fc.string().map((text) => encoder.encode(text)),
    fc.uint8Array({ maxLength: 512 }),
    fc.constantFrom('{"input": {', '{"userId": 12, "input": []}', "null", "[]", '"\\ud800"', "\u0000\u0000"),
    fc.integer({ min: BODY_LIMIT - 2, max: BODY_LIMIT * 4 }).map((n) => new Uint8Array(n).fill(0x7b)),
    fc
      .record({ userId: fc.string(), sessionId: fc.constant("SESSION"), input: fc.anything() })
      .map((value) => encoder.encode(JSON.stringify(value).replace("SESSION", sessionId))),
  )
  .map((bytes) => (typeof bytes === "string" ? encoder.encode(bytes) : bytes));

// Mostly methods Node's parser accepts, so the requests reach the router; a few it answers itself.
const method = fc.oneof(
  { arbitrary: fc.constantFrom("GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"), weight: 9 },
  { arbitrary: fc.stringMatching(/^[A-Z]{3,8}$/), weight: 1 },
);

test("malformed methods, paths, headers and bodies never get a 5xx and the server stays up", async () => {
  await fc.assert(
    fc.asyncProperty(method, path, headers, body, async (m, p, h, b) => {
      let sent: Sent;
      try {
        sent = await send(m, p, h, b);
      } catch (error) {
        // Node's own HTTP parser refuses some methods outright (400 and a closed socket).
        if (
          /ECONNRESET|socket hang up/.test(String(error)) &&
          !/^(GET|POST|PUT|PATCH|DELETE|HEAD|OPTIONS)$/.test(m)
        ) {
          return;
        }
        throw error;
      }
      expect(sent.status, `${m} ${p.slice(0, 200)}`).toBeGreaterThanOrEqual(200);
      expect(sent.status, `${m} ${p.slice(0, 200)}`).toBeLessThan(500);
    }),
    { numRuns: 400 },
  );
  const health = await request(served.url).get("/api/flows").expect(200);
  expect(health.body.flows).toHaveLength(2);
}, 60_000);
