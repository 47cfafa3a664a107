// The example of README.md, kept runnable: if this file changes, update the README too.
import { type BlockContext, generator, handler, type JsonObject, sequencer, step } from "@flowrt/core";
import { tool } from "ai";
import { MockLanguageModelV4 } from "ai/test";
import { expect, it } from "vitest";
import { z } from "zod";
import { createTokenBudget, runAction } from "./index.js";
import { textStep, toolStep } from "./testing/mock-stream.js";

it("runs the README example", async () => {
  const notes = new Map<string, string>([["session/notes/todo.md", "- buy milk"]]);
  const model = new MockLanguageModelV4({
    doStream: [
      toolStep("c1", "readResourceContent", { uri: "session/notes/todo.md" }),
      textStep(["One ", "item."]),
    ],
  });

  // --- README example starts here ---
  const summarize = generator({
    name: "summarize",
    model, // any AI SDK language model, e.g. openai("gpt-5")
    inputSchema: z.object({ uri: z.string() }),
    prompt: (input) => `Summarize ${input.uri} in one line.`,
    contentTools: true,
    maxSteps: 3,
    tokenBudget: 2_000,
  });
  const shout = handler({ name: "shout", inputSchema: z.string(), execute: (text) => text.toUpperCase() });
  const pipeline = sequencer({ name: "pipeline", steps: [step(summarize), step(shout)] });

  const events: { type: string; data: JsonObject }[] = [];
  const controller = new AbortController();
  const completed: unknown[] = [];
  const output = await runAction(
    {
      block: pipeline,
      onCompleted: (out) => void completed.push(out),
    },
    { uri: "session/notes/todo.md" },
    {
      ctx: { signal: controller.signal } as BlockContext, // the host builds the full context
      emit: async (type, data) => void events.push({ type, data }),
      signal: controller.signal,
      budget: createTokenBudget(10_000),
      loadBlockResources: async () => {},
      contentTools: () => ({
        readResourceContent: tool({
          inputSchema: z.object({ uri: z.string() }),
          execute: async ({ uri }) => notes.get(uri) ?? null,
        }),
      }),
    },
  );
  // output === "ONE ITEM."; events: block.started ×2, tool.call, tool.result, text.delta ×2, block.completed, ...
  // --- README example ends here ---

  expect(output).toBe("ONE ITEM.");
  expect(completed).toEqual(["ONE ITEM."]);
  expect(events.map((e) => e.type)).toEqual([
    "block.started",
    "block.started",
    "tool.call",
    "tool.result",
    "text.delta",
    "text.delta",
    "block.completed",
    "block.started",
    "block.completed",
    "block.completed",
  ]);
});
