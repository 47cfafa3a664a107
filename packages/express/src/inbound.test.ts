import { once } from "node:events";
import { request as httpRequest } from "node:http";
import type { AddressInfo } from "node:net";
import { DefinitionError, type RequestRecord, TERMINAL_REQUEST_STATUSES } from "@flowrt/core";
import {
  createFlowHost,
  type FlowHost,
  type InboundAdapter,
  type InboundRoute,
  silentLogger,
} from "@flowrt/engine";
import { createMemoryStores } from "@flowrt/store-memory";
import express from "express";
import request from "supertest";
import { afterEach, describe, expect, test, vi } from "vitest";
import { createFlowRouter } from "./create-flow-router.js";
import { captureRawBody } from "./raw-body.js";
import { notebook } from "./testing/fixture-flows.js";
import { type Served, serve } from "./testing/serve.js";

let served: Served | undefined;
afterEach(async () => {
  vi.restoreAllMocks();
  await served?.close();
  served = undefined;
});

/** An adapter whose routes are made without the host (they do not dispatch). */
function adapter(routes: InboundRoute[], source = "test-source"): InboundAdapter<FlowHost> {
  return { source, createBindings: () => ({ routes }) };
}

async function settled(host: FlowHost, requestId: string): Promise<RequestRecord> {
  for (let i = 0; i < 500; i++) {
    const record = await host.stores.requests.get(requestId);
    if (record && TERMINAL_REQUEST_STATUSES.includes(record.status)) return record;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(`request ${requestId} did not finish`);
}

/** A slash-command style adapter: a form-encoded POST outside basePath dispatches `addNote` as `user_id`. */
const slashCommands: InboundAdapter<FlowHost> = {
  source: "slash-commands",
  createBindings: (host) => ({
    routes: [
      {
        method: "POST",
        path: "/hooks/slash",
        handler: async (req) => {
          const form = new URLSearchParams(await req.text());
          const { requestId, sessionId } = await host.dispatch({
            source: "slash-commands",
            flowKind: "notebook",
            action: "addNote",
            input: { key: form.get("key"), title: form.get("text") },
            principal: { userId: form.get("user_id")! },
            responseEmitter: null,
          });
          return Response.json({ requestId, sessionId }, { status: 202 });
        },
      },
    ],
  }),
};

describe("custom inbound routes", () => {
  test("a route outside basePath dispatches a flow action as the principal it asserts, beside the API", async () => {
    served = await serve([notebook], { host: { inbound: [slashCommands] } });
    const res = await request(served.url)
      .post("/hooks/slash")
      .type("form")
      .send("user_id=U42&key=a&text=From%20Slack")
      .expect(202);
    expect(res.headers["content-type"]).toMatch(/^application\/json/);
    const record = await settled(served.host, res.body.requestId);
    expect(record).toMatchObject({ status: "completed", userId: "U42", output: { added: 1 } });
    expect(record.metadata.origin).toBe("slash-commands");
    expect(await served.host.stores.sessions.get(res.body.sessionId)).toMatchObject({ userId: "U42" });

    // The API and the app's own routes answer as before, now through the router's full pass.
    await request(served.url).post("/api/flows/notebook/sessions").send({ userId: "u1" }).expect(201);
    await request(served.url).get("/health").expect(200, { ok: true });
    // Other methods and paths are not the route's: they fall through to the app (Express's 404).
    const wrongMethod = await request(served.url).get("/hooks/slash").expect(404);
    expect(wrongMethod.headers["content-type"]).not.toContain("problem+json");
  });

  test("the handler gets the full URL, every header (repeated ones too) and the exact body bytes", async () => {
    const seen: Array<{ method: string; url: string; headers: Headers; body: Uint8Array }> = [];
    const echo = async (req: Request) => {
      seen.push({
        method: req.method,
        url: req.url,
        headers: req.headers,
        body: new Uint8Array(await req.arrayBuffer()),
      });
      return new Response("ok");
    };
    served = await serve([notebook], {
      host: {
        inbound: [
          adapter([
            { method: "put", path: "/hooks/:team/echo", handler: echo },
            { method: "GET", path: "/hooks/read", handler: echo },
            // A path below basePath is the route's, not the API's 404.
            { method: "POST", path: "/api/flows/hooks/inside", handler: echo },
          ]),
        ],
      },
    });
    const bytes = Buffer.from([0x00, 0xff, 0xfe, 0x0a, 0x41, 0xc3, 0x28]);
    await request(served.url)
      .put("/hooks/acme/echo?a=1&a=2&b=x%20y")
      .set("content-type", "application/octet-stream")
      .set("x-multi", ["one", "two"] as never)
      .set("cookie", "sid=abc")
      .set("authorization", "Bearer t0ken")
      .send(bytes)
      .expect(200, "ok");
    const [put] = seen;
    expect(put!.method).toBe("PUT");
    const url = new URL(put!.url);
    expect(url.origin).toBe(served.url);
    expect(url.pathname).toBe("/hooks/acme/echo");
    expect(url.searchParams.getAll("a")).toEqual(["1", "2"]);
    expect(url.searchParams.get("b")).toBe("x y");
    expect(put!.headers.get("x-multi")).toBe("one, two");
    expect(put!.headers.get("cookie")).toBe("sid=abc");
    expect(put!.headers.get("authorization")).toBe("Bearer t0ken");
    expect(put!.headers.get("content-type")).toBe("application/octet-stream");
    expect(put!.headers.get("host")).toBe(new URL(served.url).host);
    expect(Buffer.from(put!.body)).toEqual(bytes);

    await request(served.url).get("/hooks/read").expect(200, "ok");
    expect(seen[1]).toMatchObject({ method: "GET", body: new Uint8Array() });
    await request(served.url).post("/api/flows/hooks/inside").send("x=1").expect(200, "ok");
    expect(Buffer.from(seen[2]!.body).toString()).toBe("x=1");
  });

  test("the body of a form-encoded POST kept by a global parser's captureRawBody reaches the handler as sent", async () => {
    const bodies: string[] = [];
    served = await serve([notebook], {
      before: (app) => app.use(express.urlencoded({ extended: false, verify: captureRawBody })),
      host: {
        inbound: [
          adapter([
            {
              method: "POST",
              path: "/hooks/form",
              handler: async (req) => {
                bodies.push(await req.text());
                return new Response(null, { status: 204 });
              },
            },
          ]),
        ],
      },
    });
    await request(served.url).post("/hooks/form").type("form").send("b=2&a=%20+1").expect(204);
    expect(bodies).toEqual(["b=2&a=%20+1"]);
  });

  test("a streamed Response is written as it is produced, and cancelled when the client leaves", async () => {
    let release: (() => void) | undefined;
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    const cancelled = vi.fn();
    const encoder = new TextEncoder();
    const events = async () => {
      return new Response(
        new ReadableStream<Uint8Array>({
          async start(controller) {
            controller.enqueue(encoder.encode("data: first\n\n"));
            await released;
            controller.enqueue(encoder.encode("data: second\n\n"));
            controller.close();
          },
        }),
        { headers: { "content-type": "text/event-stream", "cache-control": "no-cache" } },
      );
    };
    const endless = async () =>
      new Response(
        new ReadableStream<Uint8Array>({
          pull: async (controller) => {
            controller.enqueue(encoder.encode("data: tick\n\n"));
            await new Promise((resolve) => setTimeout(resolve, 20));
          },
          cancel: cancelled,
        }),
        { headers: { "content-type": "text/event-stream" } },
      );
    served = await serve([notebook], {
      host: {
        inbound: [
          adapter([
            { method: "GET", path: "/hooks/events", handler: events },
            { method: "GET", path: "/hooks/endless", handler: endless },
          ]),
        ],
      },
    });

    const res = await fetch(`${served.url}/hooks/events`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("text/event-stream");
    expect(res.headers.get("cache-control")).toBe("no-cache");
    const reader = res.body!.getReader();
    const decoder = new TextDecoder();
    // The first event arrives while the handler's stream is still open (nothing was buffered).
    expect(decoder.decode((await reader.read()).value)).toBe("data: first\n\n");
    release!();
    let rest = "";
    for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read())
      rest += decoder.decode(chunk.value);
    expect(rest).toBe("data: second\n\n");

    const abort = new AbortController();
    const stream = await fetch(`${served.url}/hooks/endless`, { signal: abort.signal });
    const ticks = stream.body!.getReader();
    expect(decoder.decode((await ticks.read()).value)).toBe("data: tick\n\n");
    abort.abort();
    await ticks.read().catch(() => {});
    await vi.waitFor(() => expect(cancelled).toHaveBeenCalled());
    await request(served.url).get("/api/flows").expect(200);
  });

  test("a route is told the client's address as Express trusts it (req.ip), a proxy's forwarded one included", async () => {
    const seen: Array<string | undefined> = [];
    const whoami: InboundRoute["handler"] = (_req, info) => {
      seen.push(info?.remoteAddress);
      return new Response("ok");
    };
    served = await serve([notebook], {
      host: { inbound: [adapter([{ method: "GET", path: "/hooks/whoami", handler: whoami }])] },
      before: (app) => app.set("trust proxy", "loopback"),
    });
    await request(served.url).get("/hooks/whoami").expect(200, "ok");
    await request(served.url).get("/hooks/whoami").set("x-forwarded-for", "203.0.113.7").expect(200, "ok");
    expect(seen[0]).toMatch(/^(::ffff:)?127\.0\.0\.1$/);
    expect(seen[1]).toBe("203.0.113.7");
  });

  test("status, reason phrase and every header are written back, each Set-Cookie on its own; HEAD gets no body", async () => {
    const cookies = async () => {
      const headers = new Headers({ "content-type": "text/plain", "x-custom": "yes" });
      headers.append("set-cookie", "a=1; Path=/; HttpOnly");
      headers.append("set-cookie", "b=2; Path=/hooks; Secure");
      return new Response("made", { status: 201, statusText: "Made", headers });
    };
    served = await serve([notebook], {
      host: { inbound: [adapter([{ method: "GET", path: "/hooks/cookies", handler: cookies }])] },
    });
    const res = await request(served.url).get("/hooks/cookies").expect(201, "made");
    expect(res.headers["set-cookie"]).toEqual(["a=1; Path=/; HttpOnly", "b=2; Path=/hooks; Secure"]);
    expect(res.headers["x-custom"]).toBe("yes");
    expect(res.headers["content-type"]).toBe("text/plain");

    // Over a raw socket: the reason phrase, and a HEAD answered with the GET route's headers and no body.
    const raw = await new Promise<{ status?: number; message?: string; cookies?: string[]; body: string }>(
      (resolve, reject) => {
        const req = httpRequest(`${served!.url}/hooks/cookies`, { method: "HEAD" }, (res) => {
          let body = "";
          res.setEncoding("utf8").on("data", (chunk: string) => {
            body += chunk;
          });
          res.on("end", () =>
            resolve({
              status: res.statusCode,
              message: res.statusMessage,
              cookies: res.headers["set-cookie"],
              body,
            }),
          );
        });
        req.on("error", reject);
        req.end();
      },
    );
    expect(raw).toEqual({
      status: 201,
      message: "Made",
      cookies: ["a=1; Path=/; HttpOnly", "b=2; Path=/hooks; Secure"],
      body: "",
    });
  });

  test("OPTIONS at a route's path, where no route serves OPTIONS, is answered with the methods served there", async () => {
    const options = vi.fn(() => new Response(null, { status: 204, headers: { allow: "mine" } }));
    served = await serve([notebook], {
      host: {
        inbound: [
          adapter([
            { method: "POST", path: "/hooks/:team", handler: () => new Response("post") },
            { method: "GET", path: "/hooks/:team", handler: () => new Response("get") },
            { method: "OPTIONS", path: "/hooks/own/options", handler: options },
          ]),
        ],
      },
    });
    const res = await request(served.url).options("/hooks/acme").expect(200);
    expect(res.headers.allow).toBe("GET, HEAD, POST");
    expect(res.headers["content-type"]).toBe("text/plain");
    expect(res.headers["x-content-type-options"]).toBe("nosniff");
    expect(res.text).toBe("GET, HEAD, POST");
    // A route on OPTIONS answers it itself; a path no route has falls through to the app.
    const own = await request(served.url).options("/hooks/own/options").expect(204);
    expect(own.headers.allow).toBe("mine");
    expect(options).toHaveBeenCalledTimes(1);
    const elsewhere = await request(served.url).options("/elsewhere");
    expect(elsewhere.headers.allow).not.toBe("GET, HEAD, POST");
  });

  test("a handler that throws, or returns something else than a Response, is a 500 problem; the body is not logged", async () => {
    served = await serve([notebook], {
      host: {
        inbound: [
          adapter(
            [
              {
                method: "POST",
                path: "/hooks/throws",
                handler: async (req) => {
                  await req.text();
                  throw new Error("boom");
                },
              },
              {
                method: "POST",
                path: "/hooks/throws-at-once",
                handler: () => {
                  throw new Error("at once");
                },
              },
              {
                method: "POST",
                path: "/hooks/not-a-response",
                handler: (async () => ({ status: 200, body: "secret-body" })) as never,
              },
              { method: "GET", path: "/hooks/fine", handler: () => new Response("still here") },
            ],
            "failing",
          ),
        ],
      },
    });
    const logged = vi.spyOn(served.host.logger, "error");
    for (const path of ["/hooks/throws", "/hooks/throws-at-once", "/hooks/not-a-response"]) {
      const res = await request(served.url).post(path).send("token=secret-body").expect(500);
      expect(res.headers["content-type"]).toMatch(/^application\/problem\+json/);
      expect(res.body).toEqual({
        type: "about:blank",
        title: "Internal Server Error",
        status: 500,
        code: "internal-error",
        detail: "An unexpected error occurred.",
        errorId: expect.any(String),
      });
      expect(res.headers["x-request-id"]).toEqual(expect.any(String));
    }
    expect(logged).toHaveBeenCalledTimes(3);
    // Issue 22: pino's call shape; the whole error (with its stack) under the errorId the problem carries.
    expect(logged).toHaveBeenCalledWith(
      {
        source: "failing",
        method: "POST",
        route: "/hooks/throws",
        errorId: expect.any(String),
        err: expect.objectContaining({ message: "boom" }),
      },
      "inbound route failed",
    );
    expect(logged).toHaveBeenCalledWith(
      expect.objectContaining({
        err: expect.objectContaining({
          name: "TypeError",
          message: "The inbound route handler returned an object (Object), not a Response.",
        }),
      }),
      "inbound route failed",
    );
    const calls = logged.mock.calls as unknown as [Record<string, unknown>, string][];
    const written = calls.map(([fields, msg]) => ({ ...fields, msg, err: String(fields.err) }));
    expect(JSON.stringify(written)).not.toContain("secret-body");
    // The server keeps serving, the routes and the API alike.
    await request(served.url).get("/hooks/fine").expect(200, "still here");
    await request(served.url).get("/api/flows").expect(200);
  });

  test("a body stream that fails after the response started cuts the connection, is logged, and the server keeps serving", async () => {
    served = await serve([notebook], {
      host: {
        inbound: [
          adapter([
            {
              method: "GET",
              path: "/hooks/breaks",
              handler: () =>
                new Response(
                  new ReadableStream<Uint8Array>({
                    async start(controller) {
                      controller.enqueue(new TextEncoder().encode("partial"));
                      await new Promise((resolve) => setTimeout(resolve, 20));
                      controller.error(new Error("source failed"));
                    },
                  }),
                ),
            },
          ]),
        ],
      },
    });
    const logged = vi.spyOn(served.host.logger, "error");
    const res = await fetch(`${served.url}/hooks/breaks`);
    expect(res.status).toBe(200);
    await expect(res.text()).rejects.toThrow();
    await vi.waitFor(() =>
      expect(logged).toHaveBeenCalledWith(
        expect.objectContaining({
          route: "/hooks/breaks",
          err: expect.objectContaining({ message: "source failed" }),
        }),
        "inbound route failed",
      ),
    );
    await request(served.url).get("/api/flows").expect(200);
  });

  test("a body over bodyLimit is the router's 413 problem, and the handler never runs", async () => {
    const handler = vi.fn(() => new Response("ran"));
    served = await serve([notebook], {
      router: { bodyLimit: 64 },
      host: { inbound: [adapter([{ method: "POST", path: "/hooks/limited", handler }])] },
    });
    const res = await request(served.url)
      .post("/hooks/limited")
      .set("content-type", "text/plain")
      .send("z".repeat(65))
      .expect(413);
    expect(res.headers["content-type"]).toMatch(/^application\/problem\+json/);
    expect(res.body).toMatchObject({ status: 413, code: "payload-too-large", limit: 64 });
    expect(handler).not.toHaveBeenCalled();
    // Exactly the limit is accepted, on the same server.
    await request(served.url).post("/hooks/limited").type("text").send("z".repeat(64)).expect(200, "ran");
  });

  test("a Host header that makes no URL is a 400 problem", async () => {
    const handler = vi.fn(() => new Response("ran"));
    served = await serve([notebook], {
      host: { inbound: [adapter([{ method: "GET", path: "/hooks/host", handler }])] },
    });
    const { port } = new URL(served.url);
    const answer = await new Promise<{ status?: number; body: string }>((resolve, reject) => {
      const req = httpRequest(
        { host: "127.0.0.1", port, path: "/hooks/host", headers: { host: "bad host" } },
        (res) => {
          let body = "";
          res.setEncoding("utf8").on("data", (chunk: string) => {
            body += chunk;
          });
          res.on("end", () => resolve({ status: res.statusCode, body }));
        },
      );
      req.on("error", reject);
      req.end();
    });
    expect(answer.status).toBe(400);
    expect(JSON.parse(answer.body)).toMatchObject({ code: "invalid-request" });
    expect(handler).not.toHaveBeenCalled();
  });

  test("an adapter is bound once per host, however many routers mount it; without routes the router keeps its single-layer fast path", async () => {
    // Bound a second time, the adapter would declare a route: a 404 for it shows the routes were not re-read.
    const createBindings = vi
      .fn<() => { routes: InboundRoute[] }>()
      .mockReturnValueOnce({ routes: [] })
      .mockReturnValue({
        routes: [{ method: "POST", path: "/hooks/slash", handler: () => new Response("late") }],
      });
    served = await serve([notebook], { host: { inbound: [{ source: "empty", createBindings }] } });
    expect(createBindings).toHaveBeenCalledTimes(1);
    expect(createFlowRouter(served.host).stack).toHaveLength(1);
    expect(createBindings).toHaveBeenCalledTimes(1);

    const created = await request(served.url)
      .post("/api/flows/notebook/sessions")
      .send({ userId: "u1" })
      .expect(201);
    await request(served.url)
      .post("/api/flows/notebook/actions/addNote")
      .send({ sessionId: created.body.session.id, userId: "u1", input: { key: "a", title: "A" } })
      .expect(202);
    await request(served.url).get("/api/flows/nothing/here").expect(404);
    await request(served.url).get("/health").expect(200, { ok: true });
    await request(served.url).post("/hooks/slash").expect(404);
    expect(createBindings).toHaveBeenCalledTimes(1);
  });

  test("routes keep working when the router is mounted under a sub-path, matched below it", async () => {
    const host = createFlowHost({
      flows: [notebook],
      stores: createMemoryStores(),
      logger: silentLogger,
      inbound: [adapter([{ method: "POST", path: "/hooks/ping", handler: (req) => new Response(req.url) }])],
    });
    await host.start();
    const app = express();
    app.use("/tenant", createFlowRouter(host));
    const server = app.listen(0, "127.0.0.1");
    await once(server, "listening");
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      // The handler sees the full URL, the app's mount included.
      await request(url).post("/tenant/hooks/ping?x=1").expect(200, `${url}/tenant/hooks/ping?x=1`);
      await request(url).get("/tenant/api/flows").expect(200);
    } finally {
      server.closeAllConnections();
      server.close();
      await host.close();
    }
  });

  test("a route Express cannot serve is refused when the router is made, naming the route", () => {
    const host = createFlowHost({ flows: [notebook], stores: createMemoryStores(), logger: silentLogger });
    const routerFor = (route: Partial<InboundRoute>) => {
      vi.spyOn(host, "inboundRoutes").mockReturnValue([
        { handler: () => new Response(), method: "POST", path: "/hooks/x", source: "bad", ...route },
      ]);
      return () => createFlowRouter(host);
    };
    expect(routerFor({ method: "FETCH" })).toThrow(
      'Inbound route FETCH /hooks/x of adapter "bad": unsupported method "FETCH"',
    );
    expect(routerFor({ method: "FETCH" })).toThrow(DefinitionError);
    expect(routerFor({ path: "/hooks/:" })).toThrow(DefinitionError);
    expect(routerFor({ path: "/hooks/:" })).toThrow(/the path is not a valid Express route path/);
    expect(routerFor({ method: "propfind" })).not.toThrow();
  });

  test("a route no transport could serve is the host's DefinitionError, raised by the router too", () => {
    for (const route of [
      { method: "TRACE", path: "/hooks/x", handler: () => new Response() },
      { method: "POST", path: "hooks/x", handler: () => new Response() },
      { method: "POST", path: "/hooks/x", handler: "nope" as never },
    ]) {
      const host = createFlowHost({
        flows: [notebook],
        stores: createMemoryStores(),
        logger: silentLogger,
        inbound: [adapter([route], "bad")],
      });
      expect(() => createFlowRouter(host)).toThrow(DefinitionError);
      expect(() => createFlowRouter(host)).toThrow(/of adapter "bad"/);
    }
  });
});
