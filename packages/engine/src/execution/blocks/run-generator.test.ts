import { type FlowError, generator, hasErrorCode, parallel, sequencer } from "@flowrt/core";
import { tool } from "ai";
import { MockLanguageModelV4 } from "ai/test";
import { describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { executeBlock } from "./execute-block.js";
import { type LanguageModelV4StreamPart, textStep, toolStep } from "./testing/mock-stream.js";
import { blockTrail, createTestRun } from "./testing/test-run.js";

/** Content tools over an in-memory content map keyed by uri, as the resource engine would offer them. */
function memoryContentTools(contents: Map<string, string>) {
  return () => ({
    readResourceContent: tool({
      description: "Read a resource's content by uri.",
      inputSchema: z.object({ uri: z.string() }),
      execute: async ({ uri }) => ({ uri, content: contents.get(uri) ?? null }),
    }),
    writeResourceContent: tool({
      description: "Write a resource's content by uri.",
      inputSchema: z.object({ uri: z.string(), content: z.string() }),
      execute: async ({ uri, content }) => {
        contents.set(uri, content);
        return { uri, written: content.length };
      },
    }),
  });
}

describe("generator execution (AI SDK mock model)", () => {
  it("streams text deltas as events and returns the final text", async () => {
    const { run, events } = createTestRun();
    const model = new MockLanguageModelV4({ doStream: [textStep(["Hello", ", ", "world!"])] });
    const block = generator({ name: "greet", model, prompt: "Say hello" });
    await expect(executeBlock(block, undefined, run)).resolves.toBe("Hello, world!");
    expect(events.filter((e) => e.type === "text.delta").map((e) => e.data)).toEqual([
      { delta: "Hello" },
      { delta: ", " },
      { delta: "world!" },
    ]);
    expect(blockTrail(events)).toEqual(["started:greet", "completed:greet"]);
    expect(run.budget.used).toBe(8);
  });

  it("calls a content tool that writes and reads a resource, streaming the calls and results", async () => {
    const contents = new Map([["session/notes/todo.md", "- buy milk"]]);
    const { run, events } = createTestRun({ contentTools: memoryContentTools(contents) });
    const model = new MockLanguageModelV4({
      doStream: [
        toolStep("call-1", "readResourceContent", { uri: "session/notes/todo.md" }),
        toolStep("call-2", "writeResourceContent", {
          uri: "session/notes/todo.md",
          content: "- buy milk\n- call mum",
        }),
        textStep(["Added ", "it."]),
      ],
    });
    const block = generator({
      name: "editor",
      model,
      prompt: "Add 'call mum' to my todo list",
      contentTools: true,
    });

    await expect(executeBlock(block, undefined, run)).resolves.toBe("Added it.");
    expect(contents.get("session/notes/todo.md")).toBe("- buy milk\n- call mum");
    expect(events.map((e) => e.type)).toEqual([
      "block.started",
      "tool.call",
      "tool.result",
      "tool.call",
      "tool.result",
      "text.delta",
      "text.delta",
      "block.completed",
    ]);
    expect(events[1]!.data).toEqual({
      toolCallId: "call-1",
      toolName: "readResourceContent",
      input: { uri: "session/notes/todo.md" },
    });
    expect(events[2]!.data).toEqual({
      toolCallId: "call-1",
      toolName: "readResourceContent",
      output: { uri: "session/notes/todo.md", content: "- buy milk" },
    });
    expect(events[4]!.data).toMatchObject({ toolName: "writeResourceContent", output: { written: 21 } });
    // The model saw the tools, and the read's result came back to it in the next step's prompt.
    expect(model.doStreamCalls[0]!.tools?.map((t) => t.name).sort()).toEqual([
      "readResourceContent",
      "writeResourceContent",
    ]);
    expect(JSON.stringify(model.doStreamCalls[1]!.prompt)).toContain("buy milk");
    expect(run.budget.used).toBe(24);
  });

  it("offers no content tools unless the definition asks for them", async () => {
    const contentTools = vi.fn(() => ({}));
    const { run } = createTestRun({ contentTools });
    const model = new MockLanguageModelV4({ doStream: [textStep(["ok"])] });
    await executeBlock(generator({ name: "plain", model, prompt: "hi" }), undefined, run);
    expect(contentTools).not.toHaveBeenCalled();
    expect(model.doStreamCalls[0]!.tools).toBeUndefined();
  });

  it("lets the definition's own tool win a name clash with a content tool", async () => {
    const contents = new Map<string, string>();
    const { run, events } = createTestRun({ contentTools: memoryContentTools(contents) });
    const model = new MockLanguageModelV4({
      doStream: [toolStep("c", "readResourceContent", { uri: "x" }), textStep(["done"])],
    });
    const own = tool({
      inputSchema: z.object({ uri: z.string() }),
      execute: async () => ({ own: true }),
    });
    const block = generator({
      name: "own",
      model,
      prompt: "p",
      contentTools: true,
      tools: { readResourceContent: own },
    });
    await executeBlock(block, undefined, run);
    expect(events.find((e) => e.type === "tool.result")!.data).toMatchObject({ output: { own: true } });
  });

  it("builds system and prompt from the input and context, and passes the run's abort signal", async () => {
    const { run } = createTestRun();
    const model = new MockLanguageModelV4({ doStream: [textStep(["ok"])] });
    const block = generator({
      name: "templated",
      model,
      inputSchema: z.object({ topic: z.string() }),
      system: (input, ctx) => `You help user ${ctx.principal.userId} with ${input.topic}.`,
      prompt: async (input) => `Tell me about ${input.topic}`,
    });
    await executeBlock(block, { topic: "tides" }, run);
    const call = model.doStreamCalls[0]!;
    expect(call.prompt[0]).toMatchObject({ role: "system", content: "You help user u-1 with tides." });
    expect(JSON.stringify(call.prompt[1])).toContain("Tell me about tides");
    expect(call.abortSignal).toBeDefined();
  });

  it("returns the parsed object when the definition has an outputSchema", async () => {
    const { run } = createTestRun();
    const model = new MockLanguageModelV4({ doStream: [textStep(['{"title":', '"Tides","pages":3}'])] });
    const block = generator({
      name: "structured",
      model,
      prompt: "p",
      outputSchema: z.object({ title: z.string(), pages: z.number() }),
    });
    await expect(executeBlock(block, undefined, run)).resolves.toEqual({ title: "Tides", pages: 3 });
    expect(model.doStreamCalls[0]!.responseFormat).toMatchObject({ type: "json" });
  });

  it("refuses model output that does not match the outputSchema with invalid-output", async () => {
    const { run, events } = createTestRun();
    const model = new MockLanguageModelV4({ doStream: [textStep(['{"title":42}'])] });
    const block = generator({
      name: "structured",
      model,
      prompt: "p",
      outputSchema: z.object({ title: z.string() }),
    });
    const error = await executeBlock(block, undefined, run).catch((e: unknown) => e);
    expect(hasErrorCode(error, "invalid-output")).toBe(true);
    expect(blockTrail(events)).toEqual(["started:structured"]);
  });

  it("fails with step-limit-exceeded when the model is still calling tools at maxSteps", async () => {
    const { run } = createTestRun();
    const lookup = vi.fn(async () => "result");
    const model = new MockLanguageModelV4({
      doStream: [toolStep("a", "lookup", {}), toolStep("b", "lookup", {}), textStep(["never"])],
    });
    const block = generator({
      name: "loop",
      model,
      prompt: "p",
      maxSteps: 2,
      tools: { lookup: tool({ inputSchema: z.object({}), execute: lookup }) },
    });
    const error = await executeBlock(block, undefined, run).catch((e: unknown) => e);
    expect(hasErrorCode(error, "step-limit-exceeded")).toBe(true);
    expect(model.doStreamCalls).toHaveLength(2);
  });

  describe("token budgets", () => {
    const lookupTool = () => ({ lookup: tool({ inputSchema: z.object({}), execute: async () => "r" }) });

    it("stops at the generator's own tokenBudget before the next model call", async () => {
      const { run } = createTestRun();
      const model = new MockLanguageModelV4({
        doStream: [toolStep("a", "lookup", {}, { input: 10, output: 15 }), textStep(["never"])],
      });
      const block = generator({ name: "thrifty", model, prompt: "p", tokenBudget: 20, tools: lookupTool() });
      const error = await executeBlock(block, undefined, run).catch((e: unknown) => e);
      expect(hasErrorCode(error, "token-budget-exceeded")).toBe(true);
      expect((error as FlowError).details).toMatchObject({ budget: "generator", limit: 20, used: 25 });
      expect(model.doStreamCalls).toHaveLength(1);
      expect(run.budget.used).toBe(25);
    });

    it("a budget used up exactly stops before the next model call: still calling tools is token-budget-exceeded, an answer that finishes on it is kept", async () => {
      const { run } = createTestRun();
      const model = new MockLanguageModelV4({
        doStream: [toolStep("a", "lookup", {}, { input: 40, output: 60 }), textStep(["never"])],
      });
      const block = generator({ name: "exact", model, prompt: "p", tokenBudget: 100, tools: lookupTool() });
      const error = await executeBlock(block, undefined, run).catch((e: unknown) => e);
      expect(hasErrorCode(error, "token-budget-exceeded")).toBe(true);
      expect((error as FlowError).details).toMatchObject({ budget: "generator", limit: 100, used: 100 });
      expect((error as FlowError).message).toMatch(/stopped: 100 tokens used up the 100-token budget/);
      expect(model.doStreamCalls).toHaveLength(1);

      const finishing = new MockLanguageModelV4({
        doStream: [textStep(["done"], { input: 40, output: 60 })],
      });
      const fits = generator({ name: "fits", model: finishing, prompt: "p", tokenBudget: 100 });
      expect(await executeBlock(fits, undefined, createTestRun().run)).toBe("done");
    });

    it("fails when the final step takes the run past the action's budget", async () => {
      const { run } = createTestRun({ limit: 7 });
      const model = new MockLanguageModelV4({
        doStream: [textStep(["long answer"], { input: 3, output: 5 })],
      });
      const error = await executeBlock(generator({ name: "g", model, prompt: "p" }), undefined, run).catch(
        (e: unknown) => e,
      );
      expect(hasErrorCode(error, "token-budget-exceeded")).toBe(true);
      expect((error as FlowError).details).toMatchObject({ budget: "action", limit: 7, used: 8 });
    });

    it("shares the action's budget across the generators of one run", async () => {
      const { run } = createTestRun({ limit: 20 });
      const first = new MockLanguageModelV4({ doStream: [textStep(["one"], { input: 5, output: 7 })] });
      const second = new MockLanguageModelV4({ doStream: [textStep(["two"], { input: 5, output: 7 })] });
      const third = new MockLanguageModelV4({ doStream: [textStep(["three"])] });
      const seq = sequencer({
        name: "chain",
        steps: [
          generator({ name: "first", model: first, prompt: "p" }),
          generator({ name: "second", model: second, prompt: "p" }),
          generator({ name: "third", model: third, prompt: "p" }),
        ],
      });
      const error = await executeBlock(seq, undefined, run).catch((e: unknown) => e);
      expect(hasErrorCode(error, "token-budget-exceeded")).toBe(true);
      expect((error as FlowError).details).toMatchObject({ block: "second", used: 24 });
      expect(third.doStreamCalls).toHaveLength(0);
    });

    it("shares the action's budget between generators running in parallel", async () => {
      const { run } = createTestRun({ limit: 20 });
      const left = new MockLanguageModelV4({ doStream: [textStep(["left"], { input: 6, output: 6 })] });
      const right = new MockLanguageModelV4({ doStream: [textStep(["right"], { input: 6, output: 6 })] });
      const seq = sequencer({
        name: "fan",
        steps: [
          parallel([
            generator({ name: "left", model: left, prompt: "p" }),
            generator({ name: "right", model: right, prompt: "p" }),
          ]),
        ],
      });
      const error = await executeBlock(seq, undefined, run).catch((e: unknown) => e);
      expect(hasErrorCode(error, "token-budget-exceeded")).toBe(true);
      expect(run.budget.used).toBe(24);
    });

    it("refuses to call the model once the action's budget is spent", async () => {
      const { run, events } = createTestRun({ limit: 10 });
      run.budget.used = 10;
      const model = new MockLanguageModelV4({ doStream: [textStep(["no"])] });
      const error = await executeBlock(generator({ name: "late", model, prompt: "p" }), undefined, run).catch(
        (e: unknown) => e,
      );
      expect(hasErrorCode(error, "token-budget-exceeded")).toBe(true);
      expect(model.doStreamCalls).toHaveLength(0);
      expect(events.filter((e) => e.type === "text.delta")).toEqual([]);
    });
  });

  it("stops streaming and fails with request-aborted when the request is aborted mid-stream", async () => {
    const { run, events, controller } = createTestRun();
    const emit = run.emit;
    run.emit = async (type, data) => {
      await emit(type, data);
      if (type === "text.delta") controller.abort();
    };
    const model = new MockLanguageModelV4({
      doStream: [
        {
          stream: new ReadableStream<LanguageModelV4StreamPart>({
            start(c) {
              c.enqueue({ type: "text-start", id: "t" });
              c.enqueue({ type: "text-delta", id: "t", delta: "partial" });
              // The model never finishes on its own: only the abort ends this stream.
            },
          }),
        },
      ],
    });
    const error = await executeBlock(generator({ name: "cut", model, prompt: "p" }), undefined, run).catch(
      (e: unknown) => e,
    );
    expect(hasErrorCode(error, "request-aborted")).toBe(true);
    expect(events.filter((e) => e.type === "text.delta")).toHaveLength(1);
    expect(model.doStreamCalls[0]!.abortSignal?.aborted).toBe(true);
  });

  it("reports a failing tool as a tool.result with the error, and lets the model carry on", async () => {
    const { run, events } = createTestRun();
    const model = new MockLanguageModelV4({
      doStream: [toolStep("x", "flaky", {}), textStep(["recovered"])],
    });
    const flaky = tool({
      inputSchema: z.object({}),
      execute: async (): Promise<string> => {
        throw new Error("disk full");
      },
    });
    const block = generator({ name: "resilient", model, prompt: "p", tools: { flaky } });
    await expect(executeBlock(block, undefined, run)).resolves.toBe("recovered");
    expect(events.find((e) => e.type === "tool.result")!.data).toEqual({
      toolCallId: "x",
      toolName: "flaky",
      error: "disk full",
    });
  });

  it("tells a failing model stream to the application's logger, not the console, and fails the run", async () => {
    const { run } = createTestRun();
    const warn = vi.spyOn(run.ctx.log, "warn");
    const printed = vi.spyOn(console, "error").mockImplementation(() => {});
    try {
      const model = new MockLanguageModelV4({
        doStream: async () => {
          throw new Error("upstream 500");
        },
      });
      const error = await executeBlock(
        generator({ name: "flaky", model, prompt: "p" }),
        undefined,
        run,
      ).catch((e: unknown) => e);
      expect((error as Error).message).toBe("upstream 500");
      expect(warn).toHaveBeenCalledWith('generator "flaky": the model stream failed', {
        error: "upstream 500",
      });
      expect(printed).not.toHaveBeenCalled();
    } finally {
      printed.mockRestore();
    }
  });
});
