import { defineFlow, type FlowStores, handler } from "@flowrt/core";
import { createMemoryStores } from "@flowrt/store-memory";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { createFlowHost } from "../host.js";
import type { FlowHostOptions } from "../host-options.js";
import { createHttpHandler } from "../http/handler.js";
import type { HostLogger } from "../logger.js";
import { storeFactories } from "../testing/fixtures.js";
import { billing, stripeEvent, webhookProviders } from "../webhooks/testing/webhook-flows.js";
import { alphaSignature, recordingStores, serveOverSocket } from "../webhooks/testing/webhook-harness.js";

/** Holds every run of `hold` until released; `ran` counts the runs that got to their end. */
function holdFlow() {
  let release!: () => void;
  const released = new Promise<void>((resolve) => {
    release = resolve;
  });
  const state = { started: 0, ran: 0, release };
  const step = handler({
    name: "hold",
    inputSchema: z.object({ label: z.string() }),
    execute: async (input) => {
      state.started++;
      await released;
      state.ran++;
      return { label: input.label };
    },
  });
  const flow = defineFlow({
    kind: "holding",
    authentication: {
      resolvePrincipal: async (ctx) => ({ userId: ctx.request?.headers["x-user"] as string }),
    },
    actions: { hold: { block: step }, holdDurable: { block: step, durable: true } },
  });
  return { flow, state };
}

const logged: { level: string; message: string; data?: Record<string, unknown> }[] = [];
const at =
  (level: string) =>
  (obj: object | string, msg?: string): void => {
    if (typeof obj === "string") logged.push({ level, message: obj });
    else logged.push({ level, message: msg ?? "", data: obj as Record<string, unknown> });
  };
const logger: HostLogger = {
  debug() {},
  info() {},
  warn: at("warn"),
  error: at("error"),
  child: () => logger,
};

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()!().catch(() => {});
  logged.length = 0;
});

async function serve(options: Partial<FlowHostOptions> & { stores: FlowStores }, start = true) {
  const { flow, state } = holdFlow();
  const resolved: string[] = [];
  const host = createFlowHost({
    flows: [flow],
    logger,
    recoveryIntervalMs: 0,
    resolvePrincipal: async (ctx) => {
      resolved.push(ctx.request?.url ?? "");
      return { userId: "ada" };
    },
    ...options,
  });
  if (start) await host.start();
  const server = await serveOverSocket(createHttpHandler(host));
  cleanups.push(async () => {
    state.release();
    await server.close();
    await host.close();
  });
  const get = async (path: string) => {
    const response = await fetch(`${server.url}${path}`);
    return { status: response.status, headers: response.headers, body: (await response.json()) as any };
  };
  return { host, state, resolved, url: server.url, get };
}

describe("GET /healthz: the process answers", () => {
  it("200 { status: ok }, uncached, with no resolver call and without starting the host", async () => {
    const { host, resolved, get } = await serve({ stores: createMemoryStores() }, false);
    const answer = await get("/healthz");
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({ status: "ok" });
    expect(answer.headers.get("cache-control")).toBe("no-store");
    expect(resolved).toEqual([]);
    expect(host.started).toBe(false);
  });
});

describe("GET /readyz", () => {
  for (const factory of storeFactories) {
    it(`${factory.name}: 200 once started, uncached, no resolver call`, async () => {
      const made = await factory.create();
      cleanups.push(made.destroy);
      const { resolved, get } = await serve({ stores: made.stores });
      const answer = await get("/readyz");
      expect(answer.status).toBe(200);
      expect(answer.body).toEqual({ status: "ok", checks: { started: true, draining: false, store: "ok" } });
      expect(answer.headers.get("cache-control")).toBe("no-store");
      expect(resolved).toEqual([]);
    });
  }

  it("a host mounted without start() is started by the probe, then ready", async () => {
    const { host, get } = await serve({ stores: createMemoryStores() }, false);
    expect((await get("/readyz")).status).toBe(200);
    expect(host.started).toBe(true);
  });

  it("503 within the timeout when the store's ping hangs; the body names the check", async () => {
    const stores = createMemoryStores();
    const hanging: FlowStores = { ...stores, ping: () => new Promise<void>(() => {}) };
    const { get } = await serve({ stores: hanging, readinessTimeoutMs: 150 });
    const began = Date.now();
    const answer = await get("/readyz");
    const took = Date.now() - began;
    expect(answer.status).toBe(503);
    expect(answer.body).toEqual({
      status: "unavailable",
      checks: { started: true, draining: false, store: "timeout" },
    });
    expect(took).toBeGreaterThanOrEqual(140);
    expect(took).toBeLessThan(1_000);
    expect(logged.map((line) => line.message)).toContain("readiness: the store did not answer in time");
  });

  it("a store without ping() is probed with a point read: one that hangs is a timeout too", async () => {
    const stores = createMemoryStores();
    const { ping: _ping, ...withoutPing } = stores;
    let reads = 0;
    const hangingReads: FlowStores = {
      ...withoutPing,
      sessions: new Proxy(stores.sessions, {
        get(target, name, receiver) {
          if (name === "get") {
            reads++;
            if (hang.on) return () => new Promise(() => {});
          }
          const value = Reflect.get(target, name, receiver);
          return typeof value === "function" ? value.bind(target) : value;
        },
      }),
    };
    const hang = { on: false };
    const { get } = await serve({ stores: hangingReads, readinessTimeoutMs: 100 });
    const before = reads;
    expect((await get("/readyz")).body.checks.store).toBe("ok");
    expect(reads).toBe(before + 1);
    hang.on = true;
    const answer = await get("/readyz");
    expect(answer.status).toBe(503);
    expect(answer.body.checks.store).toBe("timeout");
  });

  it("a ping that fails is 503 store: error; its message is logged, never in the body", async () => {
    const stores = createMemoryStores();
    const failing: FlowStores = {
      ...stores,
      ping: async () => {
        throw new Error("connect ECONNREFUSED 10.0.0.7:5432 (secret-host-name)");
      },
    };
    const { get } = await serve({ stores: failing });
    const answer = await get("/readyz");
    expect(answer.status).toBe(503);
    expect(answer.body).toEqual({
      status: "unavailable",
      checks: { started: true, draining: false, store: "error" },
    });
    expect(JSON.stringify(answer.body)).not.toContain("secret-host-name");
    expect(logged).toContainEqual({
      level: "warn",
      message: "readiness: the store check failed",
      data: { err: expect.objectContaining({ message: expect.stringContaining("ECONNREFUSED") }) },
    });
  });

  it("both probes are in the OpenAPI document", async () => {
    const { get } = await serve({ stores: createMemoryStores() });
    const { body } = await get("/openapi.json");
    expect(Object.keys(body.paths)).toEqual(expect.arrayContaining(["/healthz", "/readyz"]));
    expect(Object.keys(body.paths["/readyz"].get.responses)).toEqual(expect.arrayContaining(["200", "503"]));
  });
});

describe("draining: close() stops taking work at once", () => {
  it("/readyz turns 503, new actions and webhook deliveries are refused 503 host-draining with nothing stored; running ones finish", async () => {
    const recorded = recordingStores(createMemoryStores());
    const { flow, state } = holdFlow();
    const host = createFlowHost({
      flows: [flow, billing],
      stores: recorded.stores,
      webhookProviders: webhookProviders(),
      logger,
      recoveryIntervalMs: 0,
    });
    await host.start();
    const server = await serveOverSocket(createHttpHandler(host));
    cleanups.push(async () => {
      state.release();
      await server.close();
      await host.close();
    });
    const post = (path: string, body: string, headers: Record<string, string>) =>
      fetch(`${server.url}${path}`, {
        method: "POST",
        body,
        headers: { "content-type": "application/json", ...headers },
      }).then(async (r) => ({ status: r.status, body: (await r.json()) as any }));

    const accepted = await post("/holding/actions/hold", JSON.stringify({ input: { label: "first" } }), {
      "x-user": "ada",
    });
    expect(accepted.status).toBe(202);
    while (state.started === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    const before = {
      sessions: recorded.writes.sessions.length,
      requests: recorded.writes.requests.length,
      events: recorded.writes.events.length,
    };

    const closing = host.close();
    expect(host.draining).toBe(true);
    const ready = await fetch(`${server.url}/readyz`);
    expect(ready.status).toBe(503);
    expect(await ready.json()).toEqual({
      status: "unavailable",
      checks: { started: true, draining: true, store: "skipped" },
    });
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200);

    const refused = await post("/holding/actions/hold", JSON.stringify({ input: { label: "second" } }), {
      "x-user": "ada",
    });
    expect(refused.status).toBe(503);
    expect(refused.body).toMatchObject({ code: "host-draining", retryable: true });
    const delivery = stripeEvent("invoice.paid", { id: "in_1", amount_paid: 1200 }, "evt_draining");
    const webhook = await post("/billing/webhooks/stripe", delivery, {
      "stripe-signature": alphaSignature(delivery),
    });
    expect(webhook.status).toBe(503);
    expect(webhook.body).toMatchObject({ code: "host-draining" });
    expect({
      sessions: recorded.writes.sessions.length,
      requests: recorded.writes.requests.length,
      events: recorded.writes.events.length,
    }).toEqual(before);

    // The running request still finishes, and close() waits for it.
    state.release();
    await closing;
    expect(state.ran).toBe(1);
    const record = await recorded.stores.requests.get(accepted.body.requestId);
    expect(record?.status).toBe("completed");
    expect(host.closed).toBe(true);
    const after = await post("/holding/actions/hold", JSON.stringify({ input: { label: "third" } }), {
      "x-user": "ada",
    });
    expect(after.body.code).toBe("host-not-started");
  });

  it("past the grace period a durable request is left for another host, which finishes it; a non-durable one fails host-lost", async () => {
    const stores = createMemoryStores();
    const first = holdFlow();
    const host = createFlowHost({
      flows: [first.flow],
      stores,
      logger,
      recoveryIntervalMs: 0,
      shutdownGraceMs: 100,
    });
    await host.start();
    const caller = { source: "script", principal: { userId: "ada" } };
    const durable = await host.invoke("holding", "holdDurable", caller, { input: { label: "kept" } });
    const plain = await host.invoke("holding", "hold", caller, { input: { label: "lost" } });
    while (first.state.started < 2) await new Promise((resolve) => setTimeout(resolve, 5));

    const began = Date.now();
    await host.close();
    expect(Date.now() - began).toBeGreaterThanOrEqual(90);
    expect(Date.now() - began).toBeLessThan(2_000);
    const left = await stores.requests.get(durable.request.id);
    expect(left).toMatchObject({ status: "running" });
    expect(left?.claim).toBeUndefined();
    expect(await stores.requests.get(plain.request.id)).toMatchObject({
      status: "failed",
      error: { code: "host-lost" },
    });
    expect(logged.map((line) => line.message)).toContain(
      "shutdown: a durable request still running at the end of the grace period is left for recovery",
    );

    // The first host's block returns late: its run writes nothing (the request is no longer its own).
    first.state.release();
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect((await stores.requests.get(durable.request.id))?.status).toBe("running");

    // Another host on the same store takes it over at its first recovery pass, at once (no lease to wait out).
    const second = holdFlow();
    second.state.release();
    const next = createFlowHost({ flows: [second.flow], stores, logger, recoveryIntervalMs: 0 });
    cleanups.push(() => next.close());
    await next.start();
    for (let i = 0; i < 200; i++) {
      if ((await stores.requests.get(durable.request.id))?.status === "completed") break;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    expect(await stores.requests.get(durable.request.id)).toMatchObject({
      status: "completed",
      output: { label: "kept" },
    });
    expect(second.state.ran).toBe(1);
  });

  it("close({ graceMs }) overrides the host's option; without either it waits for every run", async () => {
    const stores = createMemoryStores();
    const { flow, state } = holdFlow();
    const host = createFlowHost({ flows: [flow], stores, logger, recoveryIntervalMs: 0 });
    await host.start();
    const caller = { source: "script", principal: { userId: "ada" } };
    const { request } = await host.invoke("holding", "holdDurable", caller, { input: { label: "x" } });
    while (state.started === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    let closed = false;
    const closing = host.close().then(() => {
      closed = true;
    });
    await new Promise((resolve) => setTimeout(resolve, 150));
    expect(closed).toBe(false);
    // A second call shares the drain: it does not cut it short.
    void host.close({ graceMs: 0 });
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(closed).toBe(false);
    state.release();
    await closing;
    expect((await stores.requests.get(request.id))?.status).toBe("completed");
  });
});

describe("the development inspector and open flows", () => {
  const previous = process.env.NODE_ENV;
  afterEach(() => {
    if (previous === undefined) delete process.env.NODE_ENV;
    else process.env.NODE_ENV = previous;
  });

  async function debugAnswer(options: Partial<FlowHostOptions>) {
    const stores = createMemoryStores();
    const open = defineFlow({
      kind: "open",
      session: { stateSchema: z.object({ secret: z.string().default("s") }) },
    });
    const host = createFlowHost({ flows: [open], stores, logger, recoveryIntervalMs: 0, ...options });
    const server = await serveOverSocket(createHttpHandler(host));
    cleanups.push(async () => {
      await server.close();
      await host.close();
    });
    const created = await fetch(`${server.url}/open/sessions`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ userId: "ada" }),
    });
    const { session } = (await created.json()) as { session: { id: string } };
    const answer = await fetch(`${server.url}/sessions/${session.id}/debug`);
    return { status: answer.status, body: (await answer.json()) as any };
  }

  it("is off by default, without any resolver too (NODE_ENV unset or test)", async () => {
    delete process.env.NODE_ENV;
    expect(await debugAnswer({})).toMatchObject({ status: 404, body: { code: "inspector-disabled" } });
    process.env.NODE_ENV = "test";
    expect(await debugAnswer({})).toMatchObject({ status: 404, body: { code: "inspector-disabled" } });
  });

  it("is on when told: inspector: true, or NODE_ENV=development (the option wins)", async () => {
    delete process.env.NODE_ENV;
    expect((await debugAnswer({ inspector: true })).status).toBe(200);
    process.env.NODE_ENV = "development";
    expect((await debugAnswer({})).status).toBe(200);
    expect((await debugAnswer({ inspector: false })).status).toBe(404);
  });

  it("a warning at start lists every flow open to anyone (no resolver), and only those", async () => {
    const open = defineFlow({ kind: "open" });
    const guarded = defineFlow({
      kind: "guarded",
      authentication: { resolvePrincipal: async () => ({ userId: "x" }) },
    });
    const another = open.instance({ id: "open-2" });
    const host = createFlowHost({
      flows: [open, guarded, another],
      stores: createMemoryStores(),
      logger,
      recoveryIntervalMs: 0,
    });
    cleanups.push(() => host.close());
    await host.start();
    const warnings = logged.filter((line) => line.message.startsWith("flows open to anyone"));
    expect(warnings).toEqual([
      {
        level: "warn",
        message: "flows open to anyone: no principal resolver, callers name their own user (body.userId)",
        data: { flows: ["open", "open-2"], inspector: false },
      },
    ]);
  });

  it("no warning when a host resolver covers every flow", async () => {
    const host = createFlowHost({
      flows: [defineFlow({ kind: "open" })],
      stores: createMemoryStores(),
      resolvePrincipal: async () => ({ userId: "x" }),
      logger,
      recoveryIntervalMs: 0,
    });
    cleanups.push(() => host.close());
    await host.start();
    expect(logged.filter((line) => line.message.startsWith("flows open to anyone"))).toEqual([]);
  });
});
