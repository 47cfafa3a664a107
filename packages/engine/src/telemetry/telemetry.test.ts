import { OpenTelemetry } from "@ai-sdk/otel";
import { defineFlow, generator, handler, sequencer } from "@flowrt/core";
import { createMemoryStores } from "@flowrt/store-memory";
import { context, metrics, propagation, trace } from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import { W3CTraceContextPropagator } from "@opentelemetry/core";
import {
  AggregationTemporality,
  type DataPoint,
  InMemoryMetricExporter,
  MeterProvider,
  PeriodicExportingMetricReader,
} from "@opentelemetry/sdk-metrics";
import {
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
  TracerProvider,
} from "@opentelemetry/sdk-trace";
import { MockLanguageModelV4 } from "ai/test";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { textStep } from "../execution/blocks/testing/mock-stream.js";
import { createFlowHost, type FlowHost } from "../host.js";
import type { FlowHostOptions } from "../host-options.js";
import { createHttpHandler } from "../http/handler.js";
import { silentLogger } from "../logger.js";
import { settle } from "../testing/fixtures.js";
import { billing, stripeEvent, webhookProviders } from "../webhooks/testing/webhook-flows.js";
import { alphaSignature, serveOverSocket } from "../webhooks/testing/webhook-harness.js";

// One file registers the global providers for all its tests, one test at a time, and unregisters them after:
// nothing leaks into other files (each runs in its own module graph) or stays registered past this one.
const spans = new InMemorySpanExporter();
const tracerProvider = new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter: spans })] });
const reader = new PeriodicExportingMetricReader({
  exporter: new InMemoryMetricExporter(AggregationTemporality.CUMULATIVE),
  exportIntervalMillis: 3_600_000,
});
const meterProvider = new MeterProvider({ readers: [reader] });

beforeAll(() => {
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  trace.setGlobalTracerProvider(tracerProvider);
  metrics.setGlobalMeterProvider(meterProvider);
});
afterAll(async () => {
  await meterProvider.shutdown();
  await tracerProvider.shutdown();
  trace.disable();
  metrics.disable();
  propagation.disable();
  context.disable();
});

const double = handler({
  name: "double",
  inputSchema: z.object({ n: z.number() }),
  execute: async ({ n }) => ({ n: n * 2 }),
});
const increment = handler({
  name: "increment",
  inputSchema: z.object({ n: z.number() }),
  execute: async ({ n }, ctx) => {
    await ctx.session.incState({ total: n });
    return { n: n + 1 };
  },
});

/** Every run of `bump` waits here until `expected` runs have loaded the user's state: their writes then race. */
const gate = { expected: 0, waiting: [] as (() => void)[] };
const bump = handler({
  name: "bump",
  execute: async (_input, ctx) => {
    if (gate.waiting.length + 1 >= gate.expected) for (const open of gate.waiting.splice(0)) open();
    else await new Promise<void>((resolve) => gate.waiting.push(resolve));
    await ctx.user.incState({ bumps: 1 });
    return {};
  },
});

const model = () => new MockLanguageModelV4({ doStream: [textStep(["Hello"])] });

const calc = defineFlow({
  kind: "calc",
  authentication: { resolvePrincipal: async () => ({ userId: "ada" }) },
  session: { stateSchema: z.object({ total: z.number().default(0) }) },
  user: { stateSchema: z.object({ bumps: z.number().default(0) }) },
  actions: {
    run: { block: sequencer({ name: "pipeline", steps: [double, increment] }) },
    bump: { block: bump },
    tally: {
      block: handler({ name: "tally", execute: async (_input, ctx) => ({ bumps: ctx.user.state.bumps }) }),
    },
    greet: { block: generator({ name: "greeter", model: model(), prompt: "Say hello" }) },
  },
});

let host: FlowHost;
let server: Awaited<ReturnType<typeof serveOverSocket>>;

async function serve(options: Partial<FlowHostOptions> = {}) {
  host = createFlowHost({
    flows: [calc, billing],
    stores: createMemoryStores(),
    logger: silentLogger,
    recoveryIntervalMs: 0,
    webhookProviders: webhookProviders({ verified: [] }),
    ...options,
  });
  await host.start();
  server = await serveOverSocket(createHttpHandler(host));
}

beforeEach(() => spans.reset());
afterEach(async () => {
  await server?.close();
  await host?.close();
});

const TRACE_ID = "0af7651916cd43dd8448eb211c80319c";
const PARENT_ID = "b7ad6b7169203331";

function post(path: string, body: unknown, headers: Record<string, string> = {}) {
  return fetch(`${server.url}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify(body),
  });
}

/** The finished span named `name` (a run's spans end just after its terminal event is written: waited for). */
async function spanNamed(name: string): Promise<ReadableSpan> {
  for (let i = 0; i < 200; i++) {
    const found = spans.getFinishedSpans().find((s) => s.name === name);
    if (found) return found;
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  throw new Error(`no span "${name}" among ${spans.getFinishedSpans().map((s) => s.name)}`);
}

/** What a span tells an exporter: its name, attributes, status and events. */
const described = (list: ReadableSpan[]) =>
  list.map((s) => ({ name: s.name, attributes: s.attributes, status: s.status, events: s.events }));

const parentOf = (span: ReadableSpan) => span.parentSpanContext?.spanId;

async function points(metric: string): Promise<DataPoint<unknown>[]> {
  const { resourceMetrics } = await reader.collect();
  const found = resourceMetrics.scopeMetrics
    .flatMap((scope) => scope.metrics)
    .find((m) => m.descriptor.name === metric);
  return (found?.dataPoints ?? []) as DataPoint<unknown>[];
}

describe("traces and metrics through the OpenTelemetry API, over a real socket", () => {
  it("an HTTP route is a server span named by its pattern, a child of the incoming traceparent, with the HTTP attributes", async () => {
    await serve();
    const response = await post(
      "/calc/actions/run",
      { input: { n: 2 } },
      { traceparent: `00-${TRACE_ID}-${PARENT_ID}-01`, "x-request-id": "req-42" },
    );
    expect(response.status).toBe(202);
    const { requestId } = (await response.json()) as { requestId: string };
    await settle(host, requestId);

    const route = await spanNamed("POST /api/flows/:flowId/actions/:action");
    expect(route.kind).toBe(1); // SpanKind.SERVER
    expect(route.spanContext().traceId).toBe(TRACE_ID);
    expect(parentOf(route)).toBe(PARENT_ID);
    expect(route.attributes).toMatchObject({
      "http.request.method": "POST",
      "http.route": "/api/flows/:flowId/actions/:action",
      "http.response.status_code": 202,
      "url.path": "/api/flows/calc/actions/run",
      "url.scheme": "http",
      "flowrt.http.request_id": "req-42",
    });
    expect(route.attributes["error.type"]).toBeUndefined();

    const durations = await points("http.server.request.duration");
    const point = durations.find((p) => p.attributes["http.route"] === "/api/flows/:flowId/actions/:action");
    expect(point?.attributes).toMatchObject({
      "http.request.method": "POST",
      "http.response.status_code": 202,
    });
    expect((point?.value as { count?: number } | undefined)?.count).toBeGreaterThanOrEqual(1);
  });

  it("a 404 has no route: the span is named by the method alone and the duration has no http.route", async () => {
    await serve();
    const response = await fetch(`${server.url}/nothing/here/at/all`);
    expect(response.status).toBe(404);
    const span = await spanNamed("GET");
    expect(span.attributes["http.route"]).toBeUndefined();
    expect(span.attributes["http.response.status_code"]).toBe(404);
    expect(span.status.code).toBe(0); // a client's failure leaves a server span's status unset
  });

  it("a 5xx sets error.type to the problem's code and the span's status, with no message of the error on it", async () => {
    const stores = createMemoryStores();
    const failing = Object.create(stores.sessions) as typeof stores.sessions;
    failing.get = async () => {
      throw new Error("database exploded at postgres://admin:hunter2@db");
    };
    await serve({ stores: { ...stores, sessions: failing } as typeof stores });
    const response = await fetch(`${server.url}/sessions/s_1`);
    expect(response.status).toBe(500);
    const span = await spanNamed("GET /api/flows/sessions/:sessionId");
    const code = ((await response.json()) as { code: string }).code;
    expect(span.attributes["error.type"]).toBe(code);
    expect(span.status).toEqual({ code: 2, message: code });
    expect(JSON.stringify(described([span]))).not.toContain("hunter2");
  });

  it("an action run is a span under the route's, and each block a span under the block that ran it", async () => {
    await serve();
    const response = await post("/calc/actions/run", { input: { n: 2 } });
    const { requestId, sessionId } = (await response.json()) as { requestId: string; sessionId: string };
    await settle(host, requestId);

    const route = await spanNamed("POST /api/flows/:flowId/actions/:action");
    const run = await spanNamed("action calc.run");
    const pipeline = await spanNamed("block sequencer pipeline");
    const first = await spanNamed("block handler double");
    const second = await spanNamed("block handler increment");
    expect(parentOf(run)).toBe(route.spanContext().spanId);
    expect(run.attributes).toEqual({
      "flowrt.flow.kind": "calc",
      "flowrt.flow.id": "calc",
      "flowrt.action": "run",
      "flowrt.request.id": requestId,
      "flowrt.session.id": sessionId,
    });
    expect(parentOf(pipeline)).toBe(run.spanContext().spanId);
    expect(parentOf(first)).toBe(pipeline.spanContext().spanId);
    expect(parentOf(second)).toBe(pipeline.spanContext().spanId);
    expect(first.attributes).toEqual({ "flowrt.block.kind": "handler", "flowrt.block.name": "double" });
    expect(new Set([route, run, pipeline, first, second].map((s) => s.spanContext().traceId)).size).toBe(1);

    // Nothing runs any more: the runs-in-flight counter is back at 0 for the flow.
    const active = await points("flowrt.runs.active");
    expect(active.find((p) => p.attributes["flowrt.flow.kind"] === "calc")?.value).toBe(0);
  });

  it("a failing block marks its span, the run's and nothing of its message", async () => {
    await serve();
    const response = await post("/calc/actions/run", { input: { n: "two" } });
    const { requestId } = (await response.json()) as { requestId: string };
    expect((await settle(host, requestId)).record.status).toBe("failed");
    const run = await spanNamed("action calc.run");
    expect(run.attributes["error.type"]).toBe("invalid-input");
    expect(run.status.code).toBe(2);
  });

  it("with storeSpans, each store call is a span under the span that made it", async () => {
    await serve({ telemetry: { storeSpans: true } });
    const response = await post("/calc/actions/run", { input: { n: 2 } });
    const { requestId } = (await response.json()) as { requestId: string };
    await settle(host, requestId);
    const increment = await spanNamed("block handler increment");
    const writes = spans
      .getFinishedSpans()
      .filter(
        (s) => s.name.startsWith("store scopeState.") && parentOf(s) === increment.spanContext().spanId,
      );
    expect(writes.length).toBeGreaterThan(0);
    expect(writes[0]!.attributes["flowrt.store.kind"]).toBe("memory");
    const route = await spanNamed("POST /api/flows/:flowId/actions/:action");
    const persisted = spans
      .getFinishedSpans()
      .find((s) => s.name === "store requests.create" && parentOf(s) === route.spanContext().spanId);
    expect(persisted).toBeDefined();
  });

  it("the AI SDK's spans (telemetry.ai with the @ai-sdk/otel integration) nest under the generator's block span", async () => {
    await serve({ telemetry: { ai: { integrations: [new OpenTelemetry()], recordInputs: false } } });
    const response = await post("/calc/actions/greet", {});
    const { requestId } = (await response.json()) as { requestId: string };
    expect((await settle(host, requestId)).record.status).toBe("completed");
    const block = await spanNamed("block generator greeter");
    const children = spans.getFinishedSpans().filter((s) => parentOf(s) === block.spanContext().spanId);
    expect(children.length).toBeGreaterThan(0);
    expect(JSON.stringify(children.map((s) => s.attributes))).toContain("greeter"); // functionId
  });

  it("a webhook delivery is a span with its verification as a child, counted by outcome", async () => {
    await serve();
    const before = await points("flowrt.webhook.deliveries");
    const count = (outcome: string, all: DataPoint<unknown>[]) =>
      (all.find((p) => p.attributes["flowrt.webhook.outcome"] === outcome)?.value as number | undefined) ?? 0;

    const body = stripeEvent("invoice.paid", { id: "in_1", amount_paid: 5 });
    const accepted = await fetch(`${server.url}/billing/webhooks/stripe`, {
      method: "POST",
      headers: { "content-type": "application/json", "stripe-signature": alphaSignature(body) },
      body,
    });
    expect(accepted.status).toBe(202);
    const delivery = await spanNamed("webhook stripe");
    const verify = await spanNamed("webhook verify stripe");
    const route = await spanNamed("POST /api/flows/:flowKind/webhooks/:provider");
    expect(parentOf(verify)).toBe(delivery.spanContext().spanId);
    expect(parentOf(delivery)).toBe(route.spanContext().spanId);
    expect(verify.attributes["flowrt.webhook.verified"]).toBe(true);
    expect(delivery.attributes).toMatchObject({
      "flowrt.webhook.provider": "stripe",
      "flowrt.flow.kind": "billing",
      "flowrt.webhook.outcome": "accepted",
    });

    spans.reset();
    const refused = await fetch(`${server.url}/billing/webhooks/stripe`, {
      method: "POST",
      headers: { "content-type": "application/json", "stripe-signature": "t=1,v1=forged" },
      body,
    });
    expect(refused.status).toBe(401);
    expect((await spanNamed("webhook verify stripe")).attributes["flowrt.webhook.verified"]).toBe(false);
    expect(JSON.stringify(described(spans.getFinishedSpans()))).not.toContain("forged");

    const after = await points("flowrt.webhook.deliveries");
    expect(count("accepted", after) - count("accepted", before)).toBe(1);
    expect(count("refused", after) - count("refused", before)).toBe(1);
    expect(
      after.find((p) => p.attributes["flowrt.webhook.outcome"] === "refused")?.attributes["error.type"],
    ).toBe("webhook-verification-failed");
  });

  it("writes that lose their compare-and-swap race are counted as retries, and every write lands", async () => {
    await serve();
    const retries = async () =>
      (await points("flowrt.cas.retries")).reduce((n, p) => n + (p.value as number), 0);
    const before = await retries();
    // Each call starts a session of its own; the user's state is the one they all write.
    const racers = 4;
    gate.expected = racers;
    const started = await Promise.all(Array.from({ length: racers }, () => post("/calc/actions/bump", {})));
    for (const response of started) {
      const { requestId } = (await response.json()) as { requestId: string };
      expect((await settle(host, requestId)).record.status).toBe("completed");
    }
    const tally = (await (await post("/calc/actions/tally", {})).json()) as { requestId: string };
    expect((await settle(host, tally.requestId)).record.output).toEqual({ bumps: racers });
    expect((await retries()) - before).toBeGreaterThanOrEqual(racers - 1);
  });
});
