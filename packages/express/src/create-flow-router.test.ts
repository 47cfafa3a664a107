import { once } from "node:events";
import type { AddressInfo } from "node:net";
import express, { Router } from "express";
import request from "supertest";
import { afterEach, describe, expect, test, vi } from "vitest";
import { createFlowRouter } from "./create-flow-router.js";
import { notebook } from "./testing/fixture-flows.js";
import { type Served, serve } from "./testing/serve.js";

let served: Served | undefined;
afterEach(async () => {
  vi.restoreAllMocks();
  await served?.close();
  served = undefined;
});

async function sessionCount(s: Served): Promise<number> {
  return (await s.host.stores.sessions.list({ limit: 200 })).items.length;
}

async function waitForRequest(s: Served, requestId: string) {
  for (;;) {
    const res = await request(s.url).get(`/api/flows/requests/${requestId}`).expect(200);
    if (["completed", "failed", "aborted"].includes(res.body.request.status)) return res.body.request;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe("createFlowRouter", () => {
  test("serves the engine's API under host.basePath: session, action, request record and snapshot", async () => {
    served = await serve([notebook]);
    const created = await request(served.url)
      .post("/api/flows/notebook/sessions")
      .send({ userId: "u1" })
      .expect(201);
    const sessionId = created.body.session.id as string;
    expect(created.body.session).toMatchObject({ flowId: "notebook", userId: "u1" });

    const invoked = await request(served.url)
      .post("/api/flows/notebook/actions/addNote")
      .send({ sessionId, userId: "u1", input: { key: "a", title: "First" } })
      .expect(202);
    expect(invoked.body).toEqual({ requestId: expect.any(String), sessionId });
    const record = await waitForRequest(served, invoked.body.requestId);
    expect(record).toMatchObject({ status: "completed", output: { added: 1 } });

    const snapshot = await request(served.url).get(`/api/flows/sessions/${sessionId}/state`).expect(200);
    expect(snapshot.body.clientData.session).toEqual({ added: 1 });
    expect(snapshot.body.resources.session.notes.count).toBe(1);
  });

  test("passes the path still percent-encoded and the query through to the engine", async () => {
    served = await serve([notebook]);
    const { body } = await request(served.url).post("/api/flows/notebook/sessions").send({ userId: "u1" });
    const base = `/api/flows/sessions/${body.session.id}/resources/notes`;
    await request(served.url).post(base).send({ topic: "notes/x y", content: "hello" }).expect(201);
    const item = await request(served.url)
      .get(`${base}/${encodeURIComponent("notes/x y")}/content`)
      .expect(200);
    expect(item.body).toEqual({ content: "hello" });
    const page = await request(served.url).get(`${base}?limit=1&offset=0`).expect(200);
    expect(page.body.pagination).toMatchObject({ limit: 1, total: 1 });
    // A repeated query parameter reaches the engine as an array, which it refuses.
    const twice = await request(served.url).get(`${base}?limit=1&limit=2`).expect(400);
    expect(twice.body.code).toBe("invalid-request");
  });

  test("every engine response passes through: unknown route 404 and 405 as problem+json", async () => {
    served = await serve([notebook]);
    const missing = await request(served.url).get("/api/flows/nothing/here/at/all").expect(404);
    expect(missing.headers["content-type"]).toMatch(/^application\/problem\+json/);
    expect(missing.body).toMatchObject({ type: "about:blank", status: 404, code: "not-found" });
    const wrongMethod = await request(served.url).delete("/api/flows/sessions").expect(405);
    expect(wrongMethod.headers.allow).toContain("GET");
  });

  test("requests outside basePath fall through to the rest of the app", async () => {
    served = await serve([notebook]);
    await request(served.url).get("/health").expect(200, { ok: true });
    const flows = await request(served.url).get("/api/flows").expect(200);
    expect(flows.body.flows).toEqual([
      { flowId: "notebook", kind: "notebook", actions: ["addNote"], webhooks: [], requiresAuth: false },
    ]);
  });

  test("mounts at a configured basePath", async () => {
    served = await serve([notebook], { host: { basePath: "/v2/flows/" } });
    await request(served.url).get("/v2/flows").expect(200);
    await request(served.url).post("/v2/flows/notebook/sessions").send({ userId: "u1" }).expect(201);
    await request(served.url).get("/api/flows").expect(404);
  });

  test("the mount matches as Express's own would: at a segment boundary, any case, below an app sub-path", async () => {
    served = await serve([notebook]);
    // A sibling path sharing the prefix is not below the mount: it falls through to the app's 404.
    const sibling = await request(served.url).get("/api/flowsX").expect(404);
    expect(sibling.headers["content-type"]).not.toContain("problem+json");
    await request(served.url).get("/API/Flows").expect(200);
    await request(served.url).get("/api/flows/").expect(200);
    await request(served.url).get("/api/flows?x=1").expect(200);

    const app = express();
    app.use("/tenant", createFlowRouter(served.host));
    const server = app.listen(0, "127.0.0.1");
    await once(server, "listening");
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      const flows = await request(url).get("/tenant/api/flows").expect(200);
      expect(flows.body.flows.map((f: { flowId: string }) => f.flowId)).toEqual(["notebook"]);
      await request(url).get("/api/flows").expect(404);
    } finally {
      server.closeAllConnections();
      server.close();
    }
  });

  test("an unknown option is refused, and basePath is pointed at the host option", () => {
    const host = { basePath: "/api/flows", inboundRoutes: () => [] } as unknown as Parameters<
      typeof createFlowRouter
    >[0];
    expect(() => createFlowRouter(host, { basePath: "/v2" } as never)).toThrow(
      /unknown option "basePath".*createFlowHost\(\{ basePath/,
    );
    expect(() => createFlowRouter(host, { bodylimit: 10 } as never)).toThrow(/unknown option "bodylimit"/);
  });

  test("middleware an application adds to the returned router runs for what falls through the flow layer, never for an API request", async () => {
    served = await serve([notebook]);
    const router = createFlowRouter(served.host);
    const seen: string[] = [];
    router.use((req, _res, next) => {
      seen.push(req.url);
      next();
    });
    router.get("/extra", (_req, res) => {
      res.json({ extra: true });
    });
    const app = express();
    app.use(router);
    const server = app.listen(0, "127.0.0.1");
    await once(server, "listening");
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      await request(url).get("/extra").expect(200, { extra: true });
      const flows = await request(url).get("/api/flows").expect(200);
      expect(flows.body.flows.map((f: { flowId: string }) => f.flowId)).toEqual(["notebook"]);
      // The flow layer answered /api/flows itself; the added middleware saw only what fell through to it.
      expect(seen).toEqual(["/extra"]);
    } finally {
      server.closeAllConnections();
      server.close();
    }
  });

  test("the router serves the same without its stack-pass shortcut: Router.handle deleted, or absent when the router is made", async () => {
    served = await serve([notebook]);
    const withoutShortcut = createFlowRouter(served.host);
    // Deleting the router's own `handle` leaves Express's: every request takes the router's full pass.
    expect(delete (withoutShortcut as { handle?: unknown }).handle).toBe(true);
    const proto = Router.prototype as { handle?: unknown };
    const original = proto.handle;
    let madeWithoutHandle: ReturnType<typeof createFlowRouter>;
    proto.handle = undefined;
    try {
      madeWithoutHandle = createFlowRouter(served.host);
    } finally {
      proto.handle = original;
    }
    // Made while Express had no `handle`, the router installed nothing of its own.
    expect(Object.hasOwn(madeWithoutHandle, "handle")).toBe(false);
    for (const router of [withoutShortcut, madeWithoutHandle]) {
      const app = express();
      app.use(router);
      app.get("/health", (_req, res) => {
        res.json({ ok: true });
      });
      const server = app.listen(0, "127.0.0.1");
      await once(server, "listening");
      try {
        const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
        await request(url).post("/api/flows/notebook/sessions").send({ userId: "u1" }).expect(201);
        const missing = await request(url).get("/api/flows/nothing/here").expect(404);
        expect(missing.body.code).toBe("not-found");
        await request(url).get("/health").expect(200, { ok: true });
      } finally {
        server.closeAllConnections();
        server.close();
      }
    }
  });

  test("malformed JSON is the engine's 400 invalid-json, and nothing is written", async () => {
    served = await serve([notebook]);
    const res = await request(served.url)
      .post("/api/flows/notebook/sessions")
      .set("content-type", "application/json")
      .send('{"userId": "u1",')
      .expect(400);
    expect(res.body.code).toBe("invalid-json");
    expect(await sessionCount(served)).toBe(0);
  });

  test("a body over the default 1 MiB limit is 413 problem+json, and nothing is written", async () => {
    served = await serve([notebook]);
    const big = JSON.stringify({ userId: "u1", title: "x".repeat(1024 * 1024) });
    const res = await request(served.url)
      .post("/api/flows/notebook/sessions")
      .set("content-type", "application/json")
      .send(big)
      .expect(413);
    expect(res.headers["content-type"]).toMatch(/^application\/problem\+json/);
    expect(res.body).toMatchObject({ status: 413, code: "payload-too-large", limit: 1024 * 1024 });
    expect(await sessionCount(served)).toBe(0);
    // The connection stays usable: the rest of the refused body was read off before answering.
    await request(served.url).get("/api/flows").expect(200);
  });

  test("a chunked body (no Content-Length) over a configured limit is 413 without buffering it all", async () => {
    served = await serve([notebook], { router: { bodyLimit: 64 } });
    const res = await fetch(`${served.url}/api/flows/notebook/sessions`, {
      method: "POST",
      headers: { "content-type": "text/plain" },
      body: new ReadableStream({
        start(controller) {
          for (let i = 0; i < 10; i++) controller.enqueue(new TextEncoder().encode("y".repeat(32)));
          controller.close();
        },
      }),
      duplex: "half",
    } as RequestInit);
    expect(res.status).toBe(413);
    expect(await res.json()).toMatchObject({ code: "payload-too-large", limit: 64 });
    expect(await sessionCount(served)).toBe(0);
    // Exactly the limit is accepted.
    const atLimit = JSON.stringify({ userId: "u".repeat(64 - 13) });
    expect(Buffer.byteLength(atLimit)).toBe(64);
    await request(served.url).post("/api/flows/notebook/sessions").type("json").send(atLimit).expect(201);
  });

  test("an unexpected adapter failure is a 500 problem+json without message or stack", async () => {
    served = await serve([notebook]);
    const logged = vi.spyOn(served.host.logger, "error");
    const { body } = await request(served.url).post("/api/flows/notebook/sessions").send({ userId: "u1" });
    // A manifest the adapter cannot serialise (a BigInt) makes the adapter, not the engine, fail.
    vi.spyOn(served.host, "manifest").mockResolvedValue({
      flowKind: "notebook",
      resources: [],
      n: 1n,
    } as never);
    const res = await request(served.url)
      .get(`/api/flows/sessions/${body.session.id}/manifest`)
      .set("x-request-id", "lb-7f3a.1")
      .expect(500);
    expect(res.headers["content-type"]).toMatch(/^application\/problem\+json/);
    expect(res.headers["x-request-id"]).toBe("lb-7f3a.1");
    expect(res.body).toEqual({
      type: "about:blank",
      title: "Internal Server Error",
      status: 500,
      code: "internal-error",
      detail: "An unexpected error occurred.",
      errorId: expect.any(String),
    });
    expect(res.text).not.toMatch(/BigInt|at .*\.ts/);
    expect(logged).toHaveBeenCalledWith(
      expect.objectContaining({
        method: "GET",
        errorId: res.body.errorId,
        err: expect.any(TypeError),
      }),
      "flow router failed",
    );
  });
});
