import { request as httpRequest, type IncomingMessage } from "node:http";
import { afterEach, describe, expect, test, vi } from "vitest";
import { notebook, releaseWaiters, slow } from "./testing/fixture-flows.js";
import { type Served, serve } from "./testing/serve.js";

let served: Served | undefined;
afterEach(async () => {
  vi.restoreAllMocks();
  releaseWaiters();
  await served?.close();
  served = undefined;
});

/** Opens a raw HTTP request and collects the response text as it arrives. */
function open(url: string, init: { method?: string; headers?: Record<string, string>; body?: string } = {}) {
  let text = "";
  let ended: (text: string) => void = () => {};
  const req = httpRequest(url, { method: init.method ?? "GET", headers: init.headers ?? {} });
  const response = new Promise<IncomingMessage>((resolve, reject) => {
    req.on("response", (res) => {
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => {
        text += chunk;
      });
      // Listen here: a short response can end before a promise continuation would run.
      res.on("end", () => ended(text));
      resolve(res);
    });
    req.on("error", reject);
  });
  req.end(init.body);
  return {
    req,
    response,
    text: () => text,
    ended: new Promise<string>((resolve) => {
      ended = resolve;
    }),
  };
}

async function until(check: () => boolean, what: string) {
  for (let i = 0; i < 400; i++) {
    if (check()) return;
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  throw new Error(`timed out waiting for ${what}`);
}

describe("event streams", () => {
  test("an action called with Accept: text/event-stream streams its events inline, then ends", async () => {
    served = await serve([notebook]);
    const call = open(`${served.url}/api/flows/notebook/actions/addNote`, {
      method: "POST",
      headers: { accept: "text/event-stream", "content-type": "application/json" },
      body: JSON.stringify({ userId: "u1", input: { key: "a", title: "A" } }),
    });
    const res = await call.response;
    expect(res.statusCode).toBe(200);
    expect(res.headers["content-type"]).toBe("text/event-stream; charset=utf-8");
    expect(res.headers["cache-control"]).toBe("no-cache, no-transform");
    expect(res.headers["x-accel-buffering"]).toBe("no");
    expect(res.headers["x-request-id"]).toEqual(expect.any(String));
    const text = await call.ended;
    const events = [...text.matchAll(/^id: (\d+)\nevent: (\S+)\ndata: (.*)\n\n/gm)];
    expect(events.map((m) => m[2])).toContain("resource_change");
    expect(events.at(-1)?.[2]).toBe("request.completed");
    expect(events.map((m) => Number(m[1]))).toEqual(events.map((_m, i) => i + 1));
    expect(JSON.parse(events.at(-1)![3]!)).toMatchObject({ type: "request.completed", output: { added: 1 } });
  });

  test("HEAD on a stream answers its headers and ends at once", async () => {
    served = await serve([slow], { router: { heartbeatMs: 10_000 } });
    const invoked = await fetch(`${served.url}/api/flows/slow/actions/wait`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ userId: "u1", input: {} }),
    });
    const { requestId } = (await invoked.json()) as { requestId: string };
    let followed = false;
    vi.spyOn(served.host, "events").mockImplementation(() =>
      (async function* () {
        followed = true;
        yield* [];
      })(),
    );
    const head = await fetch(`${served.url}/api/flows/requests/${requestId}/stream`, { method: "HEAD" });
    expect(head.status).toBe(200);
    expect(head.headers.get("content-type")).toBe("text/event-stream; charset=utf-8");
    expect(await head.text()).toBe("");
    expect(followed).toBe(false);
  });

  test("an idle stream sends `: ping` comments every heartbeatMs, and events resume after them", async () => {
    served = await serve([slow], { router: { heartbeatMs: 20 } });
    const call = open(`${served.url}/api/flows/slow/actions/wait`, {
      method: "POST",
      headers: { accept: "text/event-stream", "content-type": "application/json" },
      body: JSON.stringify({ userId: "u1", input: {} }),
    });
    await call.response;
    await until(() => (call.text().match(/^: ping\n\n/gm) ?? []).length >= 2, "two heartbeats");
    releaseWaiters();
    const text = await call.ended;
    expect(text).toMatch(/event: request\.completed\n/);
  });

  test("a client that goes away aborts the request's signal and the adapter stops iterating", async () => {
    served = await serve([slow], { router: { heartbeatMs: 10_000 } });
    const events = served.host.events.bind(served.host);
    let signal: AbortSignal | undefined;
    let finished = false;
    vi.spyOn(served.host, "events").mockImplementation((requestId, options = {}) => {
      signal = options.signal;
      const inner = events(requestId, options);
      return (async function* () {
        try {
          yield* inner;
        } finally {
          finished = true;
        }
      })();
    });
    const call = open(`${served.url}/api/flows/slow/actions/wait`, {
      method: "POST",
      headers: { accept: "text/event-stream", "content-type": "application/json" },
      body: JSON.stringify({ userId: "u1", input: {} }),
    });
    await call.response;
    await until(() => call.text().includes("event: request.started"), "the first event");
    expect(signal?.aborted).toBe(false);
    call.req.destroy();
    await until(() => signal?.aborted === true, "the abort");
    await until(() => finished, "the iterator to finish");
  });
});

describe("middleware in front of the router", () => {
  test("one that wraps writeHead and reads an array of headers as [name, value] pairs (on-headers before 1.1, under morgan, compression, express-session) still sees every header", async () => {
    served = await serve([notebook], {
      before: (app) =>
        app.use((_req, res, next) => {
          const writeHead = res.writeHead;
          res.writeHead = function (this: typeof res, status: number, ...rest: unknown[]) {
            const headers = rest.find((arg) => typeof arg === "object" && arg !== null);
            if (Array.isArray(headers)) for (const [name, value] of headers) this.setHeader(name, value);
            else if (headers)
              for (const [name, value] of Object.entries(headers)) this.setHeader(name, value);
            return writeHead.call(this, status);
          } as typeof res.writeHead;
          next();
        }),
    });
    const listed = await fetch(`${served.url}/api/flows/sessions`);
    expect(listed.headers.get("content-type")).toBe("application/json; charset=utf-8");
    expect(await listed.json()).toEqual({ sessions: [], nextCursor: null });
    const missing = await fetch(`${served.url}/api/flows/sessions/nope`, { headers: { "x-user-id": "u1" } });
    expect(missing.status).toBe(404);
    expect(missing.headers.get("content-type")).toContain("application/problem+json");
    expect(Number(missing.headers.get("content-length"))).toBe((await missing.text()).length);
  });

  test("a stream is flushed event by event through a middleware that buffers until flush() (compression)", async () => {
    const flushed: number[] = [];
    served = await serve([notebook, slow], {
      router: { heartbeatMs: 10 },
      before: (app) =>
        app.use((_req, res, next) => {
          (res as unknown as { flush(): void }).flush = () => flushed.push(Date.now());
          next();
        }),
    });
    const call = open(`${served.url}/api/flows/slow/actions/wait`, {
      method: "POST",
      headers: { accept: "text/event-stream", "content-type": "application/json" },
      body: JSON.stringify({ userId: "u1", input: {} }),
    });
    await call.response;
    await until(() => call.text().includes("event: block.started"), "the first events");
    expect(flushed.length).toBeGreaterThan(0);
    // While the run holds, heartbeats go out through the same flush.
    const beforePings = flushed.length;
    await until(() => (call.text().match(/^: ping\n\n/gm) ?? []).length >= 2, "two heartbeats");
    expect(flushed.length).toBeGreaterThanOrEqual(beforePings + 2);
    call.req.destroy();
  });
});

describe("back-pressure", () => {
  test("waiting for a slow reader to drain again and again leaves no drain or close listener behind", async () => {
    const { write } = await import("./send-response.js");
    const { createServer } = await import("node:http");
    const counts: number[] = [];
    const server = createServer(async (_req, res) => {
      res.writeHead(200, { "content-type": "application/octet-stream" });
      const chunk = Buffer.alloc(64 * 1024, 97);
      for (let i = 0; i < 200; i++) {
        if (!(await write(res, chunk))) break;
        counts.push(res.listenerCount("close") + res.listenerCount("drain"));
      }
      res.end();
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const { port } = server.address() as import("node:net").AddressInfo;
    try {
      const response = await fetch(`http://127.0.0.1:${port}/`);
      const reader = response.body!.getReader();
      let bytes = 0;
      for (;;) {
        // A slow reader: the server's writes push back and wait for drains many times over.
        await new Promise((resolve) => setTimeout(resolve, 1));
        const { done, value } = await reader.read();
        if (done) break;
        bytes += value.byteLength;
      }
      expect(bytes).toBe(200 * 64 * 1024);
      expect(Math.max(...counts)).toBe(Math.min(...counts));
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
