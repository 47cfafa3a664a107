import { defineFlow, defineResourceCollection, handler } from "@flowrt/core";
import { createMemoryStores } from "@flowrt/store-memory";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { createFlowHost } from "../host.js";
import { silentLogger } from "../logger.js";
import { withHost } from "../testing/fixtures.js";
import { createHttpHandler } from "./handler.js";
import type { HttpRequest } from "./types.js";

const echo = defineFlow({
  kind: "echo",
  authentication: { requireUser: false, defaultUserId: "dev" },
  actions: { echo: { block: handler({ name: "echo", execute: async (input) => input }) } },
});

function post(path: string, body: string): HttpRequest {
  return { method: "POST", path, url: path, query: {}, headers: {}, rawBody: Buffer.from(body) };
}

describe("the body limit", () => {
  it("a body over the limit is 413 payload-too-large on every route, and nothing is written", async () => {
    await withHost({ flows: [echo] }, async (host, stores) => {
      const handle = createHttpHandler(host, { bodyLimit: 16 });
      const body = JSON.stringify({ input: "seventeen bytes" }); // 27 bytes
      for (const path of ["/echo/actions/echo", "/echo/sessions", "/echo/webhooks/none"]) {
        const response = await handle(post(path, body));
        expect(response.status).toBe(413);
        expect(response.headers["content-type"]).toBe("application/problem+json");
        expect(response.body).toMatchObject({ code: "payload-too-large", limit: 16 });
      }
      expect((await stores.sessions.list({})).total).toBe(0);
      expect(await stores.requests.listByStatus(["queued", "running", "completed", "failed"])).toEqual([]);
    });
  });

  it("a body of exactly the limit is served; one byte more is refused", async () => {
    await withHost({ flows: [echo] }, async (host) => {
      const handle = createHttpHandler(host, { bodyLimit: 16 });
      const atLimit = '{"input":123456}';
      expect(Buffer.byteLength(atLimit)).toBe(16);
      expect((await handle(post("/echo/actions/echo", atLimit))).status).toBe(202);
      expect((await handle(post("/echo/actions/echo", '{"input":1234567}'))).status).toBe(413);
    });
  });
});

describe("responses laid out as JSON text", () => {
  const notes = defineResourceCollection({
    pattern: "notes/*",
    scope: "session",
    stateSchema: z.object({ title: z.string().default("") }),
    client: { state: { read: true }, content: { create: true } },
  });
  const notebook = defineFlow({
    kind: "notebook",
    authentication: { requireUser: false, defaultUserId: "dev" },
    resources: { notes },
  });
  const get = (path: string): HttpRequest => ({ method: "GET", path, url: path, query: {}, headers: {} });

  it("an item and a page of whole states carry bodyText, and body still reads as the parsed value", async () => {
    await withHost({ flows: [notebook] }, async (host) => {
      const handle = createHttpHandler(host);
      const created = await handle(post("/notebook/sessions", "{}"));
      const sessionId = (created.body as { session: { id: string } }).session.id;
      const base = `/sessions/${sessionId}/resources/notes`;
      expect((await handle(post(base, '{"topic":"a"}'))).status).toBe(201);

      const item = await handle(get(`${base}/a`));
      expect(item.status).toBe(200);
      expect(item.headers["content-type"]).toBe("application/json; charset=utf-8");
      expect(item.bodyText).toBe('{"topic":"notes/a","clientData":{"title":""}}');
      expect(item.body).toEqual({ topic: "notes/a", clientData: { title: "" } });

      const page = await handle(get(base));
      expect(page.bodyText).toBe(JSON.stringify(page.body));
      expect(page.body).toMatchObject({ items: [{ topic: "notes/a", clientData: { title: "" } }] });
      // Refusals stay problem objects.
      const missing = await handle(get(`${base}/nope`));
      expect(missing.status).toBe(404);
      expect(missing.bodyText).toBeUndefined();
      expect(missing.body).toMatchObject({ code: "instance-not-found" });
    });
  });
});

describe("a host not started, or closed", () => {
  const notes = defineResourceCollection({
    pattern: "notes/*",
    scope: "session",
    stateSchema: z.object({ title: z.string().default("") }),
    client: { state: { read: true }, content: { create: true, update: true, delete: true } },
  });
  const notebook = defineFlow({
    kind: "notebook",
    authentication: { requireUser: false, defaultUserId: "dev" },
    resources: { notes },
  });
  const call = (method: string, path: string, body?: unknown): HttpRequest => ({
    method,
    path,
    url: path,
    query: {},
    headers: {},
    ...(body === undefined ? {} : { rawBody: Buffer.from(JSON.stringify(body)) }),
  });

  it("a closed host refuses session creation and the resource routes with 503 host-not-started; nothing is written", async () => {
    const stores = createMemoryStores();
    // A session and an item stored while the host ran, to address afterwards.
    const host = createFlowHost({ flows: [notebook], stores, logger: silentLogger, recoveryIntervalMs: 0 });
    await host.start();
    const handle = createHttpHandler(host);
    const created = await handle(call("POST", "/notebook/sessions", {}));
    const sessionId = (created.body as { session: { id: string } }).session.id;
    expect(
      (await handle(call("POST", `/sessions/${sessionId}/resources/notes`, { topic: "a" }))).status,
    ).toBe(201);
    await host.close();
    const sessions = (await stores.sessions.list({})).total;
    const items = () => stores.resources.count({ scope: "session", scopeId: sessionId, bucket: "shared" });
    for (const request of [
      call("POST", "/notebook/sessions", {}),
      call("POST", `/sessions/${sessionId}/resources/notes`, { topic: "b", content: "x" }),
      call("PATCH", `/sessions/${sessionId}/resources/notes/a/content`, { content: "y" }),
      call("DELETE", `/sessions/${sessionId}/resources/notes/a`),
      call("GET", `/sessions/${sessionId}/resources/notes`),
    ]) {
      const response = await handle(request);
      expect([
        request.method,
        request.path,
        response.status,
        (response.body as { code?: string }).code,
      ]).toEqual([request.method, request.path, 503, "host-not-started"]);
    }
    expect((await stores.sessions.list({})).total).toBe(sessions);
    expect(await items()).toBe(1);
    expect(
      await stores.resources.getContent(
        { scope: "session", scopeId: sessionId, bucket: "shared" },
        "notes/a",
      ),
    ).toBeNull();
  });

  it("a host mounted without start() is started by its first request (the stores set up once), and serves it", async () => {
    const stores = createMemoryStores();
    let setups = 0;
    const setup = stores.setup?.bind(stores);
    stores.setup = async () => {
      setups += 1;
      await setup?.();
    };
    const host = createFlowHost({ flows: [notebook], stores, logger: silentLogger, recoveryIntervalMs: 0 });
    const handle = createHttpHandler(host);
    const [first, second] = await Promise.all([
      handle(call("POST", "/notebook/sessions", {})),
      handle(call("GET", "/sessions")),
    ]);
    expect([first.status, second.status]).toEqual([201, 200]);
    expect(host.started).toBe(true);
    expect(setups).toBe(1);
    const sessionId = (first.body as { session: { id: string } }).session.id;
    expect(
      (await handle(call("POST", `/sessions/${sessionId}/resources/notes`, { topic: "a" }))).status,
    ).toBe(201);
    await host.close();
    expect(host.started).toBe(false);
    await expect(host.start()).rejects.toMatchObject({ code: "host-not-started" });
  });

  it("a start that fails (stores not reachable yet) is tried again by the next request, not kept", async () => {
    const stores = createMemoryStores();
    let attempts = 0;
    stores.setup = async () => {
      attempts += 1;
      if (attempts === 1) throw new Error("database starting up");
    };
    const host = createFlowHost({ flows: [notebook], stores, logger: silentLogger, recoveryIntervalMs: 0 });
    const handle = createHttpHandler(host);
    expect((await handle(call("GET", "/sessions"))).status).toBe(500);
    expect(host.started).toBe(false);
    expect((await handle(call("POST", "/notebook/sessions", {}))).status).toBe(201);
    expect(attempts).toBe(2);
    await host.close();
  });

  it("a first recovery pass that fails rejects start(), and the periodic passes still run", async () => {
    const stores = createMemoryStores();
    const listByStatus = stores.requests.listByStatus.bind(stores.requests);
    let passes = 0;
    stores.requests.listByStatus = (statuses) => {
      passes += 1;
      return passes === 1 ? Promise.reject(new Error("store down a moment")) : listByStatus(statuses);
    };
    const host = createFlowHost({ flows: [notebook], stores, logger: silentLogger, recoveryIntervalMs: 20 });
    await expect(host.start()).rejects.toThrow("store down a moment");
    expect(host.started).toBe(true);
    await host.start(); // started already: not twice
    await new Promise((resolve) => setTimeout(resolve, 120));
    expect(passes).toBeGreaterThanOrEqual(3);
    await host.close();
  });

  it("a host closed while its first start sets the stores up never starts", async () => {
    const stores = createMemoryStores();
    let release!: () => void;
    stores.setup = () =>
      new Promise<void>((resolve) => {
        release = resolve;
      });
    const host = createFlowHost({ flows: [notebook], stores, logger: silentLogger, recoveryIntervalMs: 0 });
    const starting = host.start();
    await host.close();
    release();
    await starting;
    expect(host.started).toBe(false);
    const response = await createHttpHandler(host)(call("POST", "/notebook/sessions", {}));
    expect(response.status).toBe(503);
    expect((await stores.sessions.list({})).total).toBe(0);
  });
});
