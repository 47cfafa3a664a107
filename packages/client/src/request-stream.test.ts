import type { ServerResponse } from "node:http";
import { afterEach, describe, expect, it } from "vitest";
import { createFlowClient } from "./client.js";
import type { FlowClientError } from "./errors.js";
import { type FlowStreamEvent, isStreamEvent } from "./stream-events.js";
import {
  eventLog,
  formatEvent,
  type RecordedRequest,
  sendJson,
  sendProblem,
  startEventStream,
  startTestServer,
  type TestServer,
  type WireEvent,
} from "./testing/test-server.js";

let server: TestServer | undefined;

afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** Fast reconnects so that the suite stays quick; the backoff itself is not what these tests time. */
const fast = { retryDelayMs: 1, maxRetryDelayMs: 5 };

function afterOf(req: RecordedRequest): number {
  const header = req.headers["last-event-id"];
  return header === undefined ? 0 : Number(header);
}

/** Writes the events, then part of the next one, and drops the connection once those bytes are out. */
function writeThenCut(res: ServerResponse, events: WireEvent[], partial?: WireEvent): void {
  for (const event of events) res.write(formatEvent(event));
  const tail = partial ? formatEvent(partial).slice(0, 25) : ": ping\n\n";
  res.write(tail, () => res.socket?.destroy());
}

/** Serves `log` on the stream route; `plan(n, rest, res)` decides what connection `n` does with the events after Last-Event-ID. */
async function streamServer(
  log: WireEvent[],
  plan: (connection: number, rest: WireEvent[], res: ServerResponse, req: RecordedRequest) => void,
) {
  let connection = 0;
  server = await startTestServer((req, res) => {
    const rest = log.filter((e) => e.seq > afterOf(req));
    plan(connection++, rest, res, req);
  });
  return server;
}

async function collect(iterable: AsyncIterable<FlowStreamEvent>): Promise<FlowStreamEvent[]> {
  const out: FlowStreamEvent[] = [];
  for await (const event of iterable) out.push(event);
  return out;
}

function streamRequests(s: TestServer) {
  return s.requests.filter((r) => r.url.endsWith("/stream"));
}

describe("resuming a request stream", () => {
  it("resumes a stream cut mid-event with Last-Event-ID and delivers every event exactly once, in order", async () => {
    const log = eventLog("r1", 7);
    const s = await streamServer(log, (n, rest, res) => {
      startEventStream(res);
      if (n === 0) return writeThenCut(res, rest.slice(0, 3), rest[3]);
      res.write(": ping\n\n");
      for (const event of rest) res.write(formatEvent(event));
      res.end();
    });
    const seen: FlowStreamEvent[] = [];
    const client = createFlowClient({ baseUrl: s.baseUrl });
    const terminal = await client.subscribe("r1", { ...fast, onEvent: (event) => void seen.push(event) });

    expect(seen.map((e) => e.seq)).toEqual([1, 2, 3, 4, 5, 6, 7]);
    expect(seen[3]).toEqual({
      seq: 4,
      type: "text.delta",
      requestId: "r1",
      at: log[3]!.at,
      delta: "part 4 ",
    });
    expect(terminal).toMatchObject({ seq: 7, type: "request.completed", output: { ok: true } });
    const requests = streamRequests(s);
    expect(requests.map((r) => r.url)).toEqual([
      "/api/flows/requests/r1/stream",
      "/api/flows/requests/r1/stream",
    ]);
    expect(requests[0]!.headers["last-event-id"]).toBeUndefined();
    expect(requests[1]!.headers["last-event-id"]).toBe("3");
    expect(requests[0]!.headers.accept).toBe("text/event-stream");
  });

  it("skips events a server replays again, so none is delivered twice", async () => {
    const log = eventLog("r1", 5);
    const s = await streamServer(log, (n, _rest, res) => {
      startEventStream(res);
      // This server ignores Last-Event-ID and always starts from the beginning.
      if (n === 0) return writeThenCut(res, log.slice(0, 2), log[2]);
      for (const event of log) res.write(formatEvent(event));
      res.end();
    });
    const events = await collect(createFlowClient({ baseUrl: s.baseUrl }).events("r1", fast));
    expect(events.map((e) => e.seq)).toEqual([1, 2, 3, 4, 5]);
  });

  it("starts after the lastEventId it is given", async () => {
    const s = await streamServer(eventLog("r1", 4), (_n, rest, res) => {
      startEventStream(res);
      for (const event of rest) res.write(formatEvent(event));
      res.end();
    });
    const events = await collect(createFlowClient({ baseUrl: s.baseUrl }).events("r1", { lastEventId: "2" }));
    expect(events.map((e) => e.seq)).toEqual([3, 4]);
    expect(s.requests[0]!.headers["last-event-id"]).toBe("2");
  });

  it("reconnects when the server ends the stream cleanly before the terminal event", async () => {
    const s = await streamServer(eventLog("r1", 4), (n, rest, res) => {
      startEventStream(res);
      for (const event of n === 0 ? rest.slice(0, 2) : rest) res.write(formatEvent(event));
      res.end();
    });
    const events = await collect(createFlowClient({ baseUrl: s.baseUrl }).events("r1", fast));
    expect(events.map((e) => e.seq)).toEqual([1, 2, 3, 4]);
    expect(streamRequests(s)[1]!.headers["last-event-id"]).toBe("2");
  });

  it("gives up after maxRetries failed reconnects in a row with a network-error", async () => {
    const s = await streamServer(eventLog("r1", 3), (_n, _rest, res) => res.socket?.destroy());
    const client = createFlowClient({ baseUrl: s.baseUrl });
    const error = await client
      .events("r1", { ...fast, maxRetries: 2 })
      .next()
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ name: "FlowClientError", status: 0, code: "network-error" });
    expect(streamRequests(s)).toHaveLength(3);
  });

  it("counts only failures in a row: a stream that makes progress on every connection completes", async () => {
    const s = await streamServer(eventLog("r1", 5), (_n, rest, res) => {
      startEventStream(res);
      writeThenCut(res, rest.slice(0, 1));
    });
    const events = await collect(
      createFlowClient({ baseUrl: s.baseUrl }).events("r1", { ...fast, maxRetries: 1 }),
    );
    expect(events.map((e) => e.seq)).toEqual([1, 2, 3, 4, 5]);
    expect(streamRequests(s).map(afterOf)).toEqual([0, 1, 2, 3, 4]);
  });

  it("reopens a connection that stays silent longer than idleTimeoutMs", async () => {
    const s = await streamServer(eventLog("r1", 3), (n, rest, res) => {
      startEventStream(res);
      if (n === 0) return res.write(formatEvent(rest[0]!)); // then silence, connection left open
      for (const event of rest) res.write(formatEvent(event));
      res.end();
    });
    const client = createFlowClient({ baseUrl: s.baseUrl });
    const events = await collect(client.events("r1", { ...fast, idleTimeoutMs: 50 }));
    expect(events.map((e) => e.seq)).toEqual([1, 2, 3]);
    expect(streamRequests(s).map(afterOf)).toEqual([0, 1]);
  });

  it("reopens a connection whose answer does not come within idleTimeoutMs (no headers at all)", async () => {
    const s = await streamServer(eventLog("r1", 2), (n, rest, res) => {
      if (n === 0) return; // accepts the request and never answers
      startEventStream(res);
      for (const event of rest) res.write(formatEvent(event));
      res.end();
    });
    const started = Date.now();
    const events = await collect(
      createFlowClient({ baseUrl: s.baseUrl }).events("r1", { ...fast, idleTimeoutMs: 60 }),
    );
    expect(events.map((e) => e.seq)).toEqual([1, 2]);
    expect(streamRequests(s)).toHaveLength(2);
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it("gives up on a server that never answers after maxRetries silent openings", async () => {
    const s = await streamServer([], () => {});
    const error = (await collect(
      createFlowClient({ baseUrl: s.baseUrl }).events("r1", { ...fast, idleTimeoutMs: 30, maxRetries: 2 }),
    ).catch((e: unknown) => e)) as FlowClientError;
    expect(error.code).toBe("network-error");
    expect(String((error.cause as Error)?.message ?? error.message)).toMatch(/sent nothing for 30 ms/);
    expect(streamRequests(s)).toHaveLength(3);
  });

  it("stops at once when the signal aborts while events of one chunk are still to be delivered", async () => {
    const s = await streamServer(eventLog("r1", 6), (_n, rest, res) => {
      startEventStream(res);
      res.end(rest.map(formatEvent).join("")); // all six in one chunk
    });
    const client = createFlowClient({ baseUrl: s.baseUrl });
    const stop = new AbortController();
    const seen: number[] = [];
    const outcome = await client.subscribe("r1", {
      ...fast,
      signal: stop.signal,
      onEvent: (event) => {
        seen.push(event.seq);
        if (event.seq === 2) stop.abort();
      },
    });
    expect(outcome).toBeUndefined();
    expect(seen).toEqual([1, 2]);
    const looped: number[] = [];
    const again = new AbortController();
    for await (const event of client.events("r1", { ...fast, signal: again.signal })) {
      looped.push(event.seq);
      if (event.seq === 3) again.abort();
    }
    expect(looped).toEqual([1, 2, 3]);
  });

  it("does not count a slow consumer as server silence", async () => {
    const s = await streamServer(eventLog("r1", 3), async (_n, rest, res) => {
      startEventStream(res);
      // One event per chunk, so the client goes back to read() after each slow callback.
      for (const event of rest) {
        res.write(formatEvent(event));
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
      res.end();
    });
    const client = createFlowClient({ baseUrl: s.baseUrl });
    await client.subscribe("r1", {
      ...fast,
      idleTimeoutMs: 30,
      onEvent: () => new Promise((resolve) => setTimeout(resolve, 60)),
    });
    expect(streamRequests(s)).toHaveLength(1);
  });

  it("retries 503 answers, then streams", async () => {
    const s = await streamServer(eventLog("r1", 2), (n, rest, res) => {
      if (n < 2) return sendProblem(res, 503, "store-error", "The store is unavailable.");
      startEventStream(res);
      for (const event of rest) res.write(formatEvent(event));
      res.end();
    });
    const events = await collect(createFlowClient({ baseUrl: s.baseUrl }).events("r1", fast));
    expect(events.map((e) => e.seq)).toEqual([1, 2]);
    expect(streamRequests(s)).toHaveLength(3);
  });

  it("throws a problem answer such as 404 at once, without retrying", async () => {
    const s = await streamServer([], (_n, _rest, res) =>
      sendProblem(res, 404, "request-not-found", 'Request "r9" does not exist.'),
    );
    const client = createFlowClient({ baseUrl: s.baseUrl });
    const error = await client.subscribe("r9", { ...fast, onEvent: () => {} }).catch((e: unknown) => e);
    expect(error).toMatchObject({
      status: 404,
      code: "request-not-found",
      detail: 'Request "r9" does not exist.',
    });
    expect(streamRequests(s)).toHaveLength(1);
  });

  it("refuses a 200 answer that is not an event stream, and an event whose data is not JSON", async () => {
    const s = await streamServer([], (n, _rest, res) => {
      if (n === 0) return sendJson(res, 200, { events: [] });
      startEventStream(res);
      res.end("id: 1\nevent: text.delta\ndata: not json\n\n");
    });
    const client = createFlowClient({ baseUrl: s.baseUrl });
    const notStream = (await client
      .events("r1", fast)
      .next()
      .catch((e: unknown) => e)) as FlowClientError;
    expect(notStream).toMatchObject({ code: "invalid-response" });
    const badData = (await client
      .events("r1", fast)
      .next()
      .catch((e: unknown) => e)) as FlowClientError;
    expect(badData).toMatchObject({ code: "invalid-response" });
    expect(streamRequests(s)).toHaveLength(2);
  });

  it("calls the headers function again for every reconnect", async () => {
    const s = await streamServer(eventLog("r1", 3), (n, rest, res) => {
      startEventStream(res);
      if (n === 0) return writeThenCut(res, rest.slice(0, 1));
      for (const event of rest) res.write(formatEvent(event));
      res.end();
    });
    let calls = 0;
    const client = createFlowClient({
      baseUrl: s.baseUrl,
      headers: () => ({ authorization: `Bearer t${++calls}` }),
    });
    await collect(client.events("r1", fast));
    expect(streamRequests(s).map((r) => r.headers.authorization)).toEqual(["Bearer t1", "Bearer t2"]);
  });

  it("passes custom event types through, and isStreamEvent narrows to a known one", async () => {
    const log = eventLog("r1", 3);
    log.splice(1, 0, { seq: 2, type: "progress", requestId: "r1", at: log[0]!.at, data: { percent: 50 } });
    log.forEach((event, i) => {
      event.seq = i + 1;
    });
    const s = await streamServer(log, (_n, rest, res) => {
      startEventStream(res);
      for (const event of rest) res.write(formatEvent(event));
      res.end();
    });
    const events = await collect(createFlowClient({ baseUrl: s.baseUrl }).events("r1"));
    expect(events.map((e) => e.type)).toEqual(["text.delta", "progress", "text.delta", "request.completed"]);
    expect(events[1]).toMatchObject({ percent: 50 });
    const deltas = events.filter((e) => isStreamEvent(e, "text.delta")).map((e) => e.delta);
    expect(deltas).toEqual(["part 1 ", "part 2 "]);
  });
});

describe("stopping a stream", () => {
  async function hangingServer() {
    let closed!: () => void;
    const connectionClosed = new Promise<void>((resolve) => {
      closed = resolve;
    });
    const s = await streamServer(eventLog("r1", 5), (_n, rest, res) => {
      startEventStream(res);
      res.on("close", closed);
      for (const event of rest.slice(0, 2)) res.write(formatEvent(event));
      // Then nothing more: the request is still running.
    });
    return { s, connectionClosed };
  }

  it("ends quietly when the signal aborts, and closes the connection", async () => {
    const { s, connectionClosed } = await hangingServer();
    const controller = new AbortController();
    const seen: number[] = [];
    const result = await createFlowClient({ baseUrl: s.baseUrl }).subscribe("r1", {
      signal: controller.signal,
      onEvent: (event) => {
        seen.push(event.seq);
        if (event.seq === 2) setTimeout(() => controller.abort(), 10);
      },
    });
    expect(result).toBeUndefined();
    expect(seen).toEqual([1, 2]);
    await connectionClosed;
    expect(streamRequests(s)).toHaveLength(1);
  });

  it("closes the connection when the loop breaks", async () => {
    const { s, connectionClosed } = await hangingServer();
    for await (const event of createFlowClient({ baseUrl: s.baseUrl }).events("r1")) {
      if (event.seq === 1) break;
    }
    await connectionClosed;
    expect(streamRequests(s)).toHaveLength(1);
  });

  it("stops and rethrows when onEvent throws", async () => {
    const { s, connectionClosed } = await hangingServer();
    const failure = createFlowClient({ baseUrl: s.baseUrl }).subscribe("r1", {
      onEvent: () => {
        throw new Error("handler broke");
      },
    });
    await expect(failure).rejects.toThrow("handler broke");
    await connectionClosed;
  });
});

describe("invokeAndStream", () => {
  const log = eventLog("r7", 5);
  log[0] = { ...log[0]!, type: "request.started", data: { action: "addNote", sessionId: "s3" } };

  async function actionServer(options: { exposeIds: boolean }) {
    server = await startTestServer((req, res) => {
      if (req.method === "POST") {
        startEventStream(res, options.exposeIds ? { "x-request-id": "r7", "x-session-id": "s3" } : {});
        return writeThenCut(res, log.slice(0, 2), log[2]);
      }
      startEventStream(res);
      for (const event of log.filter((e) => e.seq > afterOf(req))) res.write(formatEvent(event));
      res.end();
    });
    return server;
  }

  it("posts once with Accept: text/event-stream and resumes a cut inline stream through the stream route", async () => {
    const s = await actionServer({ exposeIds: true });
    const client = createFlowClient({ baseUrl: s.baseUrl });
    const stream = await client.invokeAndStream("notebook", "addNote", { input: { key: "a" } }, fast);
    expect(stream.requestId).toBe("r7");
    expect(stream.sessionId).toBe("s3");
    const events = await collect(stream.events);
    expect(events.map((e) => e.seq)).toEqual([1, 2, 3, 4, 5]);

    const [post, get, ...more] = s.requests;
    expect(more).toHaveLength(0);
    expect(post).toMatchObject({ method: "POST", url: "/api/flows/notebook/actions/addNote" });
    expect(post!.headers.accept).toBe("text/event-stream");
    expect(JSON.parse(post!.body)).toEqual({ input: { key: "a" } });
    expect(get).toMatchObject({ method: "GET", url: "/api/flows/requests/r7/stream" });
    expect(get!.headers["last-event-id"]).toBe("2");
  });

  it("learns the request and session ids from the events when the headers are not readable", async () => {
    const s = await actionServer({ exposeIds: false });
    const stream = await createFlowClient({ baseUrl: s.baseUrl }).invokeAndStream(
      "notebook",
      "addNote",
      { input: {} },
      fast,
    );
    expect(stream.requestId).toBeUndefined();
    const events = await collect(stream.events);
    expect(events.map((e) => e.seq)).toEqual([1, 2, 3, 4, 5]);
    expect(stream.requestId).toBe("r7");
    expect(stream.sessionId).toBe("s3");
    expect(s.requests[1]!.url).toBe("/api/flows/requests/r7/stream");
  });

  it("follows the stream route when the server answers 202 JSON instead of a stream", async () => {
    server = await startTestServer((req, res) => {
      if (req.method === "POST") return sendJson(res, 202, { requestId: "r7", sessionId: "s3" });
      startEventStream(res);
      for (const event of log) res.write(formatEvent(event));
      res.end();
    });
    const stream = await createFlowClient({ baseUrl: server.baseUrl }).invokeAndStream(
      "notebook",
      "addNote",
      {
        input: {},
      },
    );
    expect(stream.sessionId).toBe("s3");
    expect((await collect(stream.events)).map((e) => e.seq)).toEqual([1, 2, 3, 4, 5]);
  });

  it("throws the problem of a refused action call and opens no stream", async () => {
    server = await startTestServer((_req, res) =>
      sendProblem(res, 404, "action-not-found", 'No action "nope".'),
    );
    const client = createFlowClient({ baseUrl: server.baseUrl });
    await expect(client.invokeAndStream("notebook", "nope", { input: {} })).rejects.toMatchObject({
      status: 404,
      code: "action-not-found",
    });
    expect(server.requests).toHaveLength(1);
  });
});
