import { defineFlow, defineResource, defineResourceCollection, handler } from "@flowrt/core";
import request from "supertest";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { API, as, eventually } from "./testing/http.js";
import { headerResolver } from "./testing/lab-flows.js";
import { finished, invoke, type Lab, running, serveLab } from "./testing/lab-server.js";
import { eventsOf, openSse, type SseConnection } from "./testing/sse-client.js";

/**
 * What a request's log and stream may hold once it has ended, over a real socket: nothing a block writes
 * after an abort, no outcome forged through `ctx.emit`, and a resume past the end that ends at once.
 */

/** A promise with its resolve at hand. */
function deferred<T = void>() {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((done) => {
    resolve = done;
  });
  return { promise, resolve };
}

const items = defineResourceCollection({
  pattern: "items/*",
  scope: "session",
  stateSchema: z.object({ n: z.number().default(0) }),
  client: { content: { read: true }, state: { read: true } },
});

const memo = defineResource({
  scope: "session",
  stateSchema: z.object({ n: z.number().default(0) }),
  client: { expose: ["n"], live: true },
});

/** The stubborn run of the current test: it waits on `gate` (never on `ctx.signal`) and reports what it tried. */
let gate = deferred();
let report = deferred<Record<string, string>>();

/** The outcome of one write: `stored`, or the code it was refused with. */
async function attempt(tried: Record<string, string>, name: string, write: () => Promise<unknown>) {
  try {
    await write();
    tried[name] = "stored";
  } catch (error) {
    tried[name] = (error as { code?: string }).code ?? String(error);
  }
}

/** A block that does not watch `ctx.signal`: after the gate opens it writes through every part of `ctx`. */
const stubborn = handler({
  name: "stubborn",
  inputSchema: z.object({}).default({}),
  execute: async (_input, ctx) => {
    const early = await ctx.resources.items.create("early", {});
    await gate.promise;
    const tried: Record<string, string> = {};
    await attempt(tried, "create", () => ctx.resources.items.create("late", {}));
    await attempt(tried, "patchState", () => early.patchState({ n: 1 }));
    await attempt(tried, "writeContent", () => early.writeContent("late body"));
    await attempt(tried, "delete", () => ctx.resources.items.delete("early"));
    await attempt(tried, "single", () => ctx.resources.memo.incState({ n: 1 }));
    await attempt(tried, "singleContent", () => ctx.resources.memo.writeContent("late memo"));
    await attempt(tried, "session", () => ctx.session.incState({ count: 1 }));
    await attempt(tried, "emit", () => ctx.emit({ type: "progress", data: { late: true } }));
    report.resolve(tried);
    return { finished: true };
  },
});

const ENGINE_TYPES = [
  "request.started",
  "request.completed",
  "request.failed",
  "request.aborted",
  "request.anything",
  "block.started",
  "block.completed",
  "block.failed",
  "text.delta",
  "tool.call",
  "tool.result",
  "state_change",
  "resource_change",
];

/** Tries to emit every type the engine writes itself, then two of its own; returns each outcome. */
const forger = handler({
  name: "forger",
  inputSchema: z.object({}).default({}),
  execute: async (_input, ctx) => {
    const tried: Record<string, string> = {};
    for (const type of ENGINE_TYPES) {
      await attempt(tried, type, () => ctx.emit({ type, data: { error: { code: "forged" }, output: "x" } }));
    }
    await attempt(tried, "progress", () => ctx.emit({ type: "progress", data: { done: 1 } }));
    await attempt(tried, "my.thing", () => ctx.emit({ type: "my.thing", data: {} }));
    return tried;
  },
});

/** Forges a failure and lets the refusal end the run. */
const blunt = handler({
  name: "blunt",
  inputSchema: z.object({}).default({}),
  execute: async (_input, ctx) => {
    await ctx.emit({ type: "request.failed", data: { error: { code: "forged" } } });
    return { unreachable: true };
  },
});

const quick = handler({
  name: "quick",
  inputSchema: z.object({}).default({}),
  execute: async (_input, ctx) => {
    await ctx.emit({ type: "progress", data: { step: 1 } });
    return { ok: true };
  },
});

let release = deferred();
const waits = handler({
  name: "waits",
  inputSchema: z.object({}).default({}),
  execute: async (_input, ctx) => {
    await release.promise;
    await ctx.emit({ type: "progress", data: { step: 1 } });
    return { ok: true };
  },
});

const flow = defineFlow({
  kind: "aftermath",
  authentication: { resolvePrincipal: headerResolver },
  session: { stateSchema: z.object({ count: z.number().default(0) }), client: { expose: ["count"] } },
  resources: { items, memo },
  actions: {
    stubborn: { block: stubborn },
    forger: { block: forger },
    blunt: { block: blunt },
    quick: { block: quick },
    waits: { block: waits },
  },
});

let s: Lab;
const open: SseConnection[] = [];
beforeAll(async () => {
  s = await serveLab({ flows: [flow], router: { heartbeatMs: 40 } });
});
afterEach(() => {
  gate.resolve();
  release.resolve();
  for (const connection of open.splice(0)) connection.close();
});
afterAll(() => s.close());

const ada = as("ada");
const streamUrl = (requestId: string, query = "") => `${s.url}${API}/requests/${requestId}/stream${query}`;

async function connect(url: string, headers: Record<string, string> = {}) {
  const connection = await openSse(url, { headers: { ...ada, ...headers } });
  open.push(connection);
  return connection;
}

async function logOf(requestId: string) {
  return (await s.stores.requests.readEvents(requestId)).map((e) => ({ id: e.seq, event: e.type }));
}

const TERMINAL = ["request.completed", "request.failed", "request.aborted"];

describe("a block that ignores the abort signal", () => {
  it("writes nothing after the abort, and nothing follows request.aborted in the log or on any stream", async () => {
    gate = deferred();
    report = deferred();
    const run = await invoke(s.url, "aftermath", "stubborn", {}, ada);
    await eventually(async () =>
      (await logOf(run.requestId)).some((e) => e.event === "resource_change") ? true : undefined,
    );
    await request(s.url)
      .post(`${API}/requests/${run.requestId}/abort`)
      .set(ada)
      .expect(202, { status: "aborted" });
    gate.resolve();
    const tried = await report.promise;
    expect(tried).toEqual({
      create: "request-aborted",
      patchState: "request-aborted",
      writeContent: "request-aborted",
      delete: "request-aborted",
      single: "request-aborted",
      singleContent: "request-aborted",
      session: "request-aborted",
      emit: "request-aborted",
    });
    // The run has wound up: it left the active registry, which it does last (before its terminal write,
    // which the abort already made, so it finds the record finished and writes nothing).
    await eventually(async () =>
      (await s.stores.requests.listActive({ userId: "ada" })).some((e) => e.requestId === run.requestId)
        ? undefined
        : true,
    );

    const record = await finished(s.stores, run.requestId);
    expect(record).toMatchObject({ status: "aborted", error: { code: "request-aborted" } });
    const address = { scope: "session" as const, scopeId: run.sessionId, bucket: "shared" };
    expect(await s.stores.resources.getState(address, "items/late")).toBeNull();
    expect((await s.stores.resources.getState(address, "items/early"))?.state).toEqual({ n: 0 });
    expect(await s.stores.resources.getContent(address, "items/early")).toBeNull();
    expect(await s.stores.resources.getState(address, "memo")).toBeNull();
    expect(await s.stores.resources.getContent(address, "memo")).toBeNull();
    expect(await s.stores.scopeState.get(address)).toBeNull();

    const log = await logOf(run.requestId);
    expect(log).toEqual([
      { id: 1, event: "request.started" },
      { id: 2, event: "block.started" },
      { id: 3, event: "resource_change" },
      { id: 4, event: "request.aborted" },
    ]);

    const whole = eventsOf(await (await connect(streamUrl(run.requestId))).rest());
    expect(whole.map(({ id, event }) => ({ id, event }))).toEqual(log);
    const resumed = await connect(streamUrl(run.requestId, "?after=4"));
    expect(await resumed.rest()).toEqual([]);
  });
});

describe("ctx.emit", () => {
  it("refuses every type the engine writes itself (reserved-event-type) and writes nothing; custom types pass", async () => {
    const run = await invoke(s.url, "aftermath", "forger", {}, ada);
    const record = await finished(s.stores, run.requestId);
    expect(record.status).toBe("completed");
    const refused = Object.fromEntries(ENGINE_TYPES.map((type) => [type, "reserved-event-type"]));
    expect(record.output).toEqual({ ...refused, progress: "stored", "my.thing": "stored" });
    const log = await logOf(run.requestId);
    expect(log.map((e) => e.event)).toEqual([
      "request.started",
      "block.started",
      "progress",
      "my.thing",
      "block.completed",
      "request.completed",
    ]);
    const streamed = eventsOf(await (await connect(streamUrl(run.requestId))).rest());
    expect(streamed.map(({ id, event }) => ({ id, event }))).toEqual(log);
    expect(streamed.at(-1)).toMatchObject({ event: "request.completed", data: { output: record.output } });
  });

  it("a forged request.failed fails the run with the refusal; the log holds one terminal event, the genuine one", async () => {
    const connection = await openSse(`${s.url}${API}/aftermath/actions/blunt`, {
      method: "POST",
      headers: ada,
      body: JSON.stringify({ input: {} }),
    });
    open.push(connection);
    const requestId = connection.headers["x-request-id"] as string;
    const streamed = eventsOf(await connection.rest());
    const record = await finished(s.stores, requestId);
    expect(record).toMatchObject({ status: "failed", error: { code: "reserved-event-type" } });
    const log = await logOf(requestId);
    expect(log.filter((e) => TERMINAL.includes(e.event))).toEqual([{ id: 3, event: "request.failed" }]);
    expect(streamed.map(({ id, event }) => ({ id, event }))).toEqual(log);
    expect(streamed.at(-1)?.data).toMatchObject({ error: { code: "reserved-event-type" } });
  });
});

describe("resuming a finished request's stream", () => {
  it("past its last event (Last-Event-ID or ?after=) ends at once with nothing sent, not even a ping", async () => {
    const run = await invoke(s.url, "aftermath", "quick", {}, ada);
    await finished(s.stores, run.requestId);
    const log = await logOf(run.requestId);
    expect(log).toHaveLength(5);
    for (const [query, headers] of [
      ["", { "last-event-id": String(log.length + 1) }],
      ["?after=999", {}],
      [`?after=${log.length}`, {}],
    ] as const) {
      const started = Date.now();
      const connection = await connect(streamUrl(run.requestId, query), headers);
      expect(connection.status).toBe(200);
      expect(await connection.rest()).toEqual([]); // no event, no `: ping` (heartbeat 40 ms)
      expect(Date.now() - started).toBeLessThan(1_000);
    }
  });

  it("a running request's stream resumed past its log keeps streaming (pings) until it ends", async () => {
    release = deferred();
    const run = await invoke(s.url, "aftermath", "waits", {}, ada);
    await running(s.stores, run.requestId);
    const connection = await connect(streamUrl(run.requestId, "?after=2"));
    const pinged = await connection.next();
    expect(pinged?.comments).toContain("ping");
    release.resolve();
    const rest = eventsOf(await connection.rest());
    expect(rest.map((e) => e.event)).toEqual(["progress", "block.completed", "request.completed"]);
  });
});
