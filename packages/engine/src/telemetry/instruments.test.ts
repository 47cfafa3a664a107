import { trace } from "@opentelemetry/api";
import { InMemorySpanExporter, SimpleSpanProcessor, TracerProvider } from "@opentelemetry/sdk-trace";
import { afterEach, describe, expect, it } from "vitest";
import { traceBlock } from "./block-span.js";
import { engineTracer } from "./instruments.js";

afterEach(() => trace.disable());

describe("the engine's tracer follows the registered provider", () => {
  it("is absent while no SDK is registered, present once one is, and absent again after it is disabled", async () => {
    const spans = new InMemorySpanExporter();
    const provider = new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter: spans })] });
    const block = { kind: "handler", name: "double" };
    const run = async (_block: typeof block, n: number) => n * 2;

    expect(engineTracer()).toBeUndefined();
    await expect(traceBlock(block, run, 2, undefined, undefined)).resolves.toBe(4);
    expect(spans.getFinishedSpans()).toHaveLength(0);

    trace.setGlobalTracerProvider(provider);
    expect(engineTracer()).toBeDefined();
    await expect(traceBlock(block, run, 3, undefined, undefined)).resolves.toBe(6);
    expect(spans.getFinishedSpans().map((s) => s.name)).toEqual(["block handler double"]);

    trace.disable();
    expect(engineTracer()).toBeUndefined();
    await expect(traceBlock(block, run, 4, undefined, undefined)).resolves.toBe(8);
    expect(spans.getFinishedSpans()).toHaveLength(1);
    await provider.shutdown();
  });
});
