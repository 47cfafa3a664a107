import { generator, hasErrorCode } from "@flowrt/core";
import { MockLanguageModelV4 } from "ai/test";
import { describe, expect, it } from "vitest";
import { AI_SDK_MISSING_HINT, type AiSdkImporter, loadAiSdk } from "./ai-sdk.js";
import { runGenerator } from "./run-generator.js";
import { textStep } from "./testing/mock-stream.js";
import { createTestRun } from "./testing/test-run.js";

/** An importer that fails as Node does when `ai` is not installed. */
const notInstalled: AiSdkImporter = () =>
  Promise.reject(
    Object.assign(
      new Error("Cannot find package 'ai' imported from /app/node_modules/@flowrt/engine/dist/x.js"),
      {
        code: "ERR_MODULE_NOT_FOUND",
      },
    ),
  );

describe("the AI SDK, an optional peer loaded when a generator runs", () => {
  it("without `ai`, a generator run fails with internal-error naming the package and how to install it", async () => {
    const { run, events } = createTestRun();
    const model = new MockLanguageModelV4({ doStream: [textStep(["never"])] });
    const block = generator({ name: "greet", model, prompt: () => "Say hello" });
    const failure = await runGenerator(block, undefined, run, notInstalled).catch((error: unknown) => error);
    expect(hasErrorCode(failure, "internal-error")).toBe(true);
    const message = (failure as Error).message;
    expect(message).toContain("install the `ai` package (an optional peer dependency of @flowrt/engine)");
    expect(message).toContain("npm install ai");
    expect(message).toContain("Cannot find package 'ai'");
    expect((failure as Error).cause).toMatchObject({ code: "ERR_MODULE_NOT_FOUND" });
    // Nothing ran: no model call, no event, no tokens.
    expect(model.doStreamCalls).toHaveLength(0);
    expect(events).toEqual([]);
    expect(run.budget.used).toBe(0);
  });

  it("a failed import is not remembered; the installed SDK loads once and is shared", async () => {
    await expect(loadAiSdk(notInstalled)).rejects.toThrow(AI_SDK_MISSING_HINT);
    const first = await loadAiSdk();
    expect(typeof first.streamText).toBe("function");
    expect(await loadAiSdk()).toBe(first);
  });
});
