import request from "supertest";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { API, as, eventually, expectProblem } from "./testing/http.js";
import { releaseHeld } from "./testing/lab-flows.js";
import { finished, invoke, type Lab, running, serveLab } from "./testing/lab-server.js";
import { eventsOf, openSse, type SseConnection, type SseMessage } from "./testing/sse-client.js";

/** Request streams over a real socket (server on port 0): order, resume, inline streams, headers. */

let s: Lab;
const open: SseConnection[] = [];
beforeAll(async () => {
  s = await serveLab({ router: { heartbeatMs: 40 } });
});
afterEach(() => {
  releaseHeld();
  for (const connection of open.splice(0)) connection.close();
});
afterAll(() => s.close());

const ada = as("ada");
const streamUrl = (requestId: string, query = "") => `${s.url}${API}/requests/${requestId}/stream${query}`;

async function connect(url: string, options: Parameters<typeof openSse>[1] = {}) {
  const connection = await openSse(url, { ...options, headers: { ...ada, ...options.headers } });
  open.push(connection);
  return connection;
}

/** The request's persisted log, as the stream should present it. */
async function logOf(requestId: string) {
  return (await s.stores.requests.readEvents(requestId)).map((e) => ({ id: e.seq, event: e.type }));
}

function expectStreamHeaders(connection: SseConnection) {
  expect(connection.status).toBe(200);
  expect(connection.headers["content-type"]).toMatch(/^text\/event-stream/);
  expect(connection.headers["cache-control"]).toBe("no-cache, no-transform");
  expect(connection.headers["x-accel-buffering"]).toBe("no");
}

describe("GET /requests/:id/stream", () => {
  it("events arrive in order with gap-free ids, each data envelope matching its id and type, ending after the terminal event", async () => {
    const run = await invoke(s.url, "lab", "steps", { input: { before: 2, after: 2, hold: true } }, ada);
    await running(s.stores, run.requestId);
    const connection = await connect(streamUrl(run.requestId));
    expectStreamHeaders(connection);
    // Live: the first events are already there; the rest come after the release.
    const first: SseMessage[] = [];
    while (eventsOf(first).filter((e) => e.event === "progress").length < 2) {
      const message = await connection.next();
      if (message === null) throw new Error("stream ended early");
      first.push(message);
    }
    releaseHeld();
    const events = eventsOf([...first, ...(await connection.rest())]);
    expect(events.map((e) => e.id)).toEqual(events.map((_, i) => i + 1));
    for (const e of events) {
      expect(e.data).toMatchObject({
        seq: e.id,
        type: e.event,
        requestId: run.requestId,
        at: expect.any(String),
      });
    }
    expect(events[0]?.event).toBe("request.started");
    expect(events.at(-1)?.event).toBe("request.completed");
    expect(events.filter((e) => e.event === "progress").map((e) => e.data.text)).toEqual([
      "b1",
      "b2",
      "a1",
      "a2",
    ]);
    expect(events.map(({ id, event }) => ({ id, event }))).toEqual(await logOf(run.requestId));
  });

  it("a reconnect with Last-Event-ID replays exactly the events after it, none twice, none missed", async () => {
    const run = await invoke(s.url, "lab", "steps", { input: { before: 3, after: 3, hold: true } }, ada);
    await running(s.stores, run.requestId);
    const connection = await connect(streamUrl(run.requestId));
    const seen: SseMessage[] = [];
    while (!eventsOf(seen).some((e) => e.data.text === "b2")) {
      const message = await connection.next();
      if (message === null) throw new Error("stream ended early");
      seen.push(message);
    }
    connection.close(); // the client drops while the request is still running
    const lastId = eventsOf(seen).at(-1)!.id;
    releaseHeld();
    await finished(s.stores, run.requestId);

    const resumed = await connect(streamUrl(run.requestId), { headers: { "last-event-id": String(lastId) } });
    expectStreamHeaders(resumed);
    const replayed = eventsOf(await resumed.rest());
    const log = await logOf(run.requestId);
    expect(replayed.map(({ id, event }) => ({ id, event }))).toEqual(log.filter((e) => e.id > lastId));
    expect([...eventsOf(seen), ...replayed].map((e) => e.id)).toEqual(log.map((e) => e.id));
  });

  it("?after= resumes like Last-Event-ID", async () => {
    const run = await invoke(s.url, "lab", "steps", { input: { before: 2, after: 0, hold: false } }, ada);
    await finished(s.stores, run.requestId);
    const log = await logOf(run.requestId);
    const replayed = eventsOf(await (await connect(streamUrl(run.requestId, "?after=2"))).rest());
    expect(replayed.map(({ id, event }) => ({ id, event }))).toEqual(log.filter((e) => e.id > 2));
    const past = eventsOf(await (await connect(streamUrl(run.requestId, `?after=${log.length}`))).rest());
    expect(past).toEqual([]);
    // An empty Last-Event-ID (a client that has seen nothing yet) does not override ?after=.
    const withEmpty = await connect(streamUrl(run.requestId, "?after=2"), {
      headers: { "last-event-id": "" },
    });
    expect(eventsOf(await withEmpty.rest()).map(({ id }) => id)).toEqual(
      log.filter((e) => e.id > 2).map((e) => e.id),
    );
  });

  it("a malformed Last-Event-ID or ?after= is 400 naming the field", async () => {
    const run = await invoke(s.url, "lab", "steps", { input: { before: 0, after: 0, hold: false } }, ada);
    for (const req of [
      request(s.url).get(`${API}/requests/${run.requestId}/stream`).set(ada).set("last-event-id", "x1"),
      request(s.url).get(`${API}/requests/${run.requestId}/stream?after=-1`).set(ada),
    ]) {
      expect(expectProblem(await req, 400, "invalid-request").field).toBe("after");
    }
  });

  it("the owner is checked before the resume point: a malformed one from no credential is 401, from another user 403, for an unknown request 404", async () => {
    const run = await invoke(s.url, "lab", "steps", { input: { before: 0, after: 0, hold: false } }, ada);
    const stream = `${API}/requests/${run.requestId}/stream`;
    expectProblem(await request(s.url).get(`${stream}?after=x`), 401, "unauthorized");
    expectProblem(
      await request(s.url).get(stream).set(as("bob")).set("last-event-id", "zz"),
      403,
      "forbidden",
    );
    expectProblem(
      await request(s.url).get(`${API}/requests/nope/stream?after=x`).set(ada),
      404,
      "request-not-found",
    );
  });

  it("an idle stream sends `: ping` comments", async () => {
    const run = await invoke(s.url, "lab", "hold", {}, ada);
    await running(s.stores, run.requestId);
    const connection = await connect(streamUrl(run.requestId));
    const pinged = await eventually(async () => {
      const message = await connection.next();
      return message?.comments.includes("ping") ? message : undefined;
    });
    expect(pinged.id).toBeUndefined();
  });
});

describe("inline stream on an action POST with Accept: text/event-stream", () => {
  it("answers 200 with the request's stream and its ids in headers, through the terminal event", async () => {
    const connection = await connect(`${s.url}${API}/lab/actions/touch`, {
      method: "POST",
      body: JSON.stringify({ input: { key: "inline", title: "I" } }),
    });
    expectStreamHeaders(connection);
    const requestId = connection.headers["x-request-id"] as string;
    const sessionId = connection.headers["x-session-id"] as string;
    expect(requestId).toEqual(expect.any(String));
    expect(await s.stores.sessions.get(sessionId)).toMatchObject({ userId: "ada" });
    const events = eventsOf(await connection.rest());
    expect(events.map(({ id, event }) => ({ id, event }))).toEqual(await logOf(requestId));
    expect(events.map((e) => e.event)).toEqual(
      expect.arrayContaining(["request.started", "resource_change", "state_change", "request.completed"]),
    );
    expect(events.find((e) => e.event === "resource_change")?.data).toMatchObject({
      scope: "session",
      ref: "notes",
      kind: "collection",
      topic: "notes/inline",
      change: "created",
    });
    expect(events.find((e) => e.event === "state_change")?.data).toMatchObject({
      scope: "session",
      clientData: { count: 1 },
    });
    expect(events.at(-1)).toMatchObject({ event: "request.completed", data: { output: { count: 1 } } });
  });

  it("Accept is read by quality: text/event-stream;q=0, or ranked below application/json, gets the 202 answer", async () => {
    for (const accept of [
      "text/event-stream;q=0, application/json",
      "application/json, text/event-stream;q=0.5",
      "text/event-stream ; Q=0",
    ]) {
      const res = await request(s.url)
        .post(`${API}/lab/actions/touch`)
        .set(ada)
        .set("accept", accept)
        .send({ input: { key: "q", title: "Q" } });
      expect([accept, res.status, res.headers["content-type"]]).toEqual([
        accept,
        202,
        "application/json; charset=utf-8",
      ]);
    }
    const streamed = await connect(`${s.url}${API}/lab/actions/touch`, {
      method: "POST",
      headers: { accept: "application/json;q=0.9, text/event-stream" },
      body: JSON.stringify({ input: { key: "q2", title: "Q" } }),
    });
    expectStreamHeaders(streamed);
    await streamed.rest();
  });

  it("a refused inline call is a problem+json answer, not a stream", async () => {
    const res = await request(s.url)
      .post(`${API}/lab/actions/touch`)
      .set("accept", "text/event-stream")
      .send({ input: { key: "k", title: "T" } });
    expectProblem(res, 401, "unauthorized");
  });
});
