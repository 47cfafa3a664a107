import { createHmac, timingSafeEqual } from "node:crypto";
import { Writable } from "node:stream";
import { defineFlow, type FlowStores, handler } from "@flowrt/core";
import { createFlowHost, type FlowHost, type HostLogger, silentLogger } from "@flowrt/engine";
import { createMemoryStores } from "@flowrt/store-memory";
import express from "express";
import pino from "pino";
import { afterEach, describe, expect, it } from "vitest";
import { createFlowRouter } from "./create-flow-router.js";

/**
 * Issue 22, part A, through real HTTP (Express on an ephemeral port): internal errors reach clients as `internal-error`
 * with an `errorId` and are logged whole under it; pino plugs in as it is; every answer echoes `x-request-id`; one
 * access line per request; secrets, tokens and bodies never reach the log.
 */

const SECRET = "whsec_observability_SECRET_9f31";
const TOKEN = "tok_BEARER_7d1c0e";
const MARKER = "BODY_MARKER_5a7b";
const BOOM = "database exploded at /var/lib/db.sock";

function sign(body: string): string {
  return createHmac("sha256", SECRET).update(body).digest("hex");
}

const explode = handler({
  name: "explode",
  execute: async () => {
    throw new Error(BOOM);
  },
});
const echo = handler({
  name: "echo",
  execute: async (input) => ({ ok: true, size: JSON.stringify(input).length }),
});

const ops = defineFlow({
  kind: "ops",
  authentication: {
    // Reads a bearer token: the token must never reach the log.
    resolvePrincipal: async (c) => {
      if (c.source === "webhook") return { userId: "acme-bot" };
      const header = c.request?.headers.authorization;
      return header === `Bearer ${TOKEN}` ? { userId: "ada" } : {};
    },
  },
  actions: { explode: { block: explode }, echo: { block: echo } },
  webhooks: {
    acme: {
      on: {
        "thing.failed": { block: explode },
        "thing.noted": { block: echo },
      },
    },
  },
});

const webhookProviders = {
  acme: {
    verify(rawBody: Uint8Array, headers: Record<string, string | string[] | undefined>) {
      const sent = Buffer.from(String(headers["x-acme-signature"] ?? ""), "utf8");
      const expected = Buffer.from(sign(Buffer.from(rawBody).toString("utf8")), "utf8");
      return sent.length === expected.length && timingSafeEqual(sent, expected);
    },
    eventType: (payload: { type: string }) => payload.type,
  },
};

/** A pino logger writing to memory, and its lines parsed. */
function pinoLines(level = "info"): {
  logger: HostLogger;
  lines: () => Record<string, any>[];
  text: () => string;
} {
  const chunks: string[] = [];
  const stream = new Writable({
    write(chunk, _encoding, done) {
      chunks.push(String(chunk));
      done();
    },
  });
  const logger = pino({ level }, stream);
  const text = () => chunks.join("");
  return {
    logger,
    text,
    lines: () =>
      text()
        .split("\n")
        .filter((line) => line !== "")
        .map((line) => JSON.parse(line)),
  };
}

interface Served {
  host: FlowHost;
  url: string;
  stores: FlowStores;
  close(): Promise<void>;
}

async function serve(options: {
  logger: HostLogger;
  stores?: FlowStores;
  [key: string]: unknown;
}): Promise<Served> {
  const stores = options.stores ?? createMemoryStores();
  const host = createFlowHost({
    flows: [ops],
    recoveryIntervalMs: 0,
    webhookProviders,
    ...options,
    stores,
  });
  await host.start();
  const app = express();
  app.use(createFlowRouter(host));
  const server = app.listen(0, "127.0.0.1");
  await new Promise<void>((resolve) => server.once("listening", resolve));
  const { port } = server.address() as { port: number };
  return {
    host,
    stores,
    url: `http://127.0.0.1:${port}`,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await host.close();
    },
  };
}

let served: Served | undefined;
afterEach(async () => {
  await served?.close();
  served = undefined;
});

const auth = { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" };

async function until(host: FlowHost, stores: FlowStores, requestId: string) {
  for (let i = 0; i < 200; i++) {
    const record = await stores.requests.get(requestId);
    if (record && ["completed", "failed", "aborted"].includes(record.status)) return record;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error(`request ${requestId} did not finish on ${host.hostId}`);
}

describe("an internal error reaches clients as internal-error with an errorId, and is logged whole", () => {
  it("an HTTP route whose store throws: 500 internal-error, generic detail, errorId; the log has the stack and reqId", async () => {
    const log = pinoLines();
    const stores = createMemoryStores();
    const broken: FlowStores = {
      ...stores,
      sessions: {
        ...stores.sessions,
        get: async () => {
          throw new Error(BOOM);
        },
      } as FlowStores["sessions"],
    };
    served = await serve({ logger: log.logger, stores: broken });
    const response = await fetch(`${served.url}/api/flows/sessions/s-1`, {
      headers: { ...auth, "x-request-id": "route-err-1" },
    });
    const body = (await response.json()) as any;
    expect(response.status).toBe(500);
    expect(response.headers.get("x-request-id")).toBe("route-err-1");
    expect(body).toMatchObject({ code: "internal-error", detail: "An unexpected error occurred." });
    expect(body.errorId).toMatch(/^[0-9a-f-]{36}$/);
    expect(JSON.stringify(body)).not.toContain("exploded");
    const failure = log.lines().find((line) => line.errorId === body.errorId);
    expect(failure).toMatchObject({ level: 50, reqId: "route-err-1", msg: "request handler failed" });
    expect(failure?.err).toMatchObject({ type: "Error", message: BOOM });
    expect(failure?.err.stack).toContain(BOOM);
  });

  it("an action run: the record, its terminal event and the session's history carry the errorId, not the message", async () => {
    const log = pinoLines();
    served = await serve({ logger: log.logger });
    const started = await fetch(`${served.url}/api/flows/ops/actions/explode`, {
      method: "POST",
      headers: { ...auth, "x-request-id": "run-err-1" },
      body: JSON.stringify({ input: {} }),
    });
    expect(started.headers.get("x-request-id")).toBe("run-err-1");
    const { requestId, sessionId } = (await started.json()) as any;
    await until(served.host, served.stores, requestId);

    const { request: record } = (await (
      await fetch(`${served.url}/api/flows/requests/${requestId}`, { headers: auth })
    ).json()) as any;
    expect(record.status).toBe("failed");
    expect(record.error).toEqual({
      code: "internal-error",
      message: "An unexpected error occurred.",
      retryable: false,
      errorId: expect.stringMatching(/^[0-9a-f-]{36}$/),
    });
    const history = (await (
      await fetch(`${served.url}/api/flows/sessions/${sessionId}/requests`, { headers: auth })
    ).json()) as any;
    expect(history.requests[0].error).toEqual({ code: "internal-error", errorId: record.error.errorId });

    const failure = log.lines().find((line) => line.errorId === record.error.errorId);
    expect(failure).toMatchObject({
      level: 50,
      msg: "request failed",
      reqId: "run-err-1",
      requestId,
      flowId: "ops",
      action: "explode",
      userId: "ada",
      err: { type: "Error", message: BOOM },
    });
    expect(failure?.err.stack).toContain("explode");
  });

  it("a stream: the SSE terminal event carries internal-error and the errorId; x-request-id on the stream", async () => {
    const log = pinoLines();
    served = await serve({ logger: log.logger });
    const started = await fetch(`${served.url}/api/flows/ops/actions/explode`, {
      method: "POST",
      headers: auth,
      body: JSON.stringify({ input: {} }),
    });
    const { requestId } = (await started.json()) as any;
    const stream = await fetch(`${served.url}/api/flows/requests/${requestId}/stream`, {
      headers: { ...auth, "x-request-id": "sse-1" },
    });
    expect(stream.headers.get("content-type")).toContain("text/event-stream");
    expect(stream.headers.get("x-request-id")).toBe("sse-1");
    const text = await stream.text();
    expect(text).not.toContain("exploded");
    const failed = text.split("\n\n").find((frame) => frame.includes("event: request.failed"));
    const data = JSON.parse(
      failed!
        .split("\n")
        .find((line) => line.startsWith("data: "))!
        .slice(6),
    );
    expect(data.error).toMatchObject({ code: "internal-error", message: "An unexpected error occurred." });
    expect(log.lines().some((line) => line.errorId === data.error.errorId && line.level === 50)).toBe(true);
    // The stream's access line is written when it ends, with its route pattern.
    await expect
      .poll(() => log.lines().find((line) => line.reqId === "sse-1" && line.msg === "request completed"))
      .toMatchObject({ method: "GET", route: "/api/flows/requests/:requestId/stream", status: 200 });
  });

  it("a webhook run: the stored record is sanitized, the log has the error and the delivery's reqId", async () => {
    const log = pinoLines();
    served = await serve({ logger: log.logger });
    const body = JSON.stringify({ type: "thing.failed" });
    const response = await fetch(`${served.url}/api/flows/ops/webhooks/acme`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-acme-signature": sign(body), "x-request-id": "wh-1" },
      body,
    });
    expect(response.status).toBe(202);
    expect(response.headers.get("x-request-id")).toBe("wh-1");
    const { requestId } = (await response.json()) as any;
    const record = await until(served.host, served.stores, requestId);
    expect(record.error).toMatchObject({ code: "internal-error", message: "An unexpected error occurred." });
    expect(JSON.stringify(record)).not.toContain("exploded");
    const failure = log.lines().find((line) => line.errorId === record.error?.errorId);
    expect(failure).toMatchObject({
      reqId: "wh-1",
      action: "webhook:acme:thing.failed",
      err: { message: BOOM },
    });
  });

  it("exposeErrors: true shows the message (development), with the errorId still there", async () => {
    served = await serve({ logger: silentLogger, exposeErrors: true });
    const started = await fetch(`${served.url}/api/flows/ops/actions/explode`, {
      method: "POST",
      headers: auth,
      body: JSON.stringify({ input: {} }),
    });
    const { requestId } = (await started.json()) as any;
    const record = await until(served.host, served.stores, requestId);
    expect(record.error).toMatchObject({
      code: "internal-error",
      message: BOOM,
      errorId: expect.any(String),
    });
  });

  it("a FlowError meant for clients reaches them as it is, without errorId", async () => {
    served = await serve({ logger: silentLogger });
    const response = await fetch(`${served.url}/api/flows/ops/actions/nope`, {
      method: "POST",
      headers: auth,
      body: JSON.stringify({ input: {} }),
    });
    const body = (await response.json()) as any;
    expect(response.status).toBe(404);
    expect(body.code).toBe("action-not-found");
    expect(body.errorId).toBeUndefined();
  });
});

describe("request ids and the access log", () => {
  it("echoes a valid x-request-id, replaces an invalid one, and sets one on 404, 405, HEAD and problems", async () => {
    const log = pinoLines();
    served = await serve({ logger: log.logger });
    const ok = await fetch(`${served.url}/api/flows/openapi.json`, {
      headers: { ...auth, "x-request-id": "abc.DEF:1-2_3" },
    });
    expect(ok.headers.get("x-request-id")).toBe("abc.DEF:1-2_3");
    for (const bad of ["has space", "x".repeat(129), 'quote"d', ""]) {
      const answer = await fetch(`${served.url}/api/flows/openapi.json`, {
        headers: { ...auth, "x-request-id": bad },
      });
      expect(answer.headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/);
    }
    const missing = await fetch(`${served.url}/api/flows/no/such/path/here`, { headers: auth });
    expect(missing.status).toBe(404);
    expect(missing.headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/);
    const wrongMethod = await fetch(`${served.url}/api/flows/openapi.json`, {
      method: "DELETE",
      headers: auth,
    });
    expect(wrongMethod.status).toBe(405);
    expect(wrongMethod.headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/);
    const head = await fetch(`${served.url}/api/flows/openapi.json`, {
      method: "HEAD",
      headers: { "x-request-id": "head-1" },
    });
    expect(head.headers.get("x-request-id")).toBe("head-1");
    const unauthorized = await fetch(`${served.url}/api/flows/ops/actions/echo`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-request-id": "denied-1" },
      body: "{}",
    });
    expect(unauthorized.status).toBe(401);
    expect(unauthorized.headers.get("x-request-id")).toBe("denied-1");

    const access = log.lines().filter((line) => line.msg === "request completed");
    expect(access.find((line) => line.reqId === "abc.DEF:1-2_3")).toMatchObject({
      level: 30,
      method: "GET",
      route: "/api/flows/openapi.json",
      status: 200,
      durationMs: expect.any(Number),
    });
    expect(access.find((line) => line.status === 404)).toMatchObject({ route: "(unmatched)" });
    expect(access.find((line) => line.reqId === "denied-1")).toMatchObject({
      route: "/api/flows/:flowId/actions/:action",
      status: 401,
    });
    expect(access.find((line) => line.reqId === "head-1")).toMatchObject({ method: "HEAD", status: 200 });
    // One line per request: 1 + 4 + 404 + 405 + HEAD + 401.
    expect(access).toHaveLength(9);
  });

  it("accessLog: false writes no access line; the id is still echoed", async () => {
    const log = pinoLines();
    served = await serve({ logger: log.logger, accessLog: false });
    const answer = await fetch(`${served.url}/api/flows/openapi.json`, {
      headers: { "x-request-id": "quiet-1" },
    });
    expect(answer.headers.get("x-request-id")).toBe("quiet-1");
    expect(log.lines().filter((line) => line.msg === "request completed")).toEqual([]);
  });
});

describe("secrets, tokens and bodies never reach the log", () => {
  it("at trace level, a run with a bearer token, a signed webhook and marked bodies logs none of them", async () => {
    const log = pinoLines("trace");
    served = await serve({ logger: log.logger });
    const invoked = await fetch(`${served.url}/api/flows/ops/actions/echo`, {
      method: "POST",
      headers: auth,
      body: JSON.stringify({ input: { note: MARKER } }),
    });
    expect(invoked.status).toBe(202);
    const { requestId } = (await invoked.json()) as any;
    await until(served.host, served.stores, requestId);
    const failing = await fetch(`${served.url}/api/flows/ops/actions/explode`, {
      method: "POST",
      headers: auth,
      body: JSON.stringify({ input: { note: MARKER } }),
    });
    await until(served.host, served.stores, ((await failing.json()) as any).requestId);
    const body = JSON.stringify({ type: "thing.noted", note: MARKER });
    const delivered = await fetch(`${served.url}/api/flows/ops/webhooks/acme`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-acme-signature": sign(body) },
      body,
    });
    expect(delivered.status).toBe(202);
    await until(served.host, served.stores, ((await delivered.json()) as any).requestId);
    // A refused delivery and a refused token are logged too (their access lines), without what they carried.
    await fetch(`${served.url}/api/flows/ops/webhooks/acme`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-acme-signature": sign("other") },
      body,
    });
    await fetch(`${served.url}/api/flows/ops/actions/echo?token=${TOKEN}`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${TOKEN}x` },
      body: JSON.stringify({ input: { note: MARKER } }),
    });

    const text = log.text();
    expect(log.lines().filter((line) => line.msg === "request completed").length).toBeGreaterThanOrEqual(5);
    expect(text).toContain(BOOM); // the run's failure is there, whole
    // Debug lines were written (so the grep below looked at them too).
    expect(log.lines().some((line) => line.msg === "webhook delivery accepted" && line.level === 20)).toBe(
      true,
    );
    expect(log.lines().some((line) => line.msg === "run completed" && line.action === "echo")).toBe(true);
    for (const secret of [SECRET, TOKEN, MARKER, sign(body)]) expect(text).not.toContain(secret);
  });
});
