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
