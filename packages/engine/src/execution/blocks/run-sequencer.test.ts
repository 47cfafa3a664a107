import {
  type FlowError,
  handler,
  hasErrorCode,
  parallel,
  rescue,
  sequencer,
  step,
  stepIf,
} from "@flowrt/core";
import { describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { executeBlock } from "./execute-block.js";
import { blockTrail, createTestRun } from "./testing/test-run.js";

const double = handler({ name: "double", inputSchema: z.number(), execute: (n) => n * 2 });
const inc = handler({ name: "inc", inputSchema: z.number(), execute: (n) => n + 1 });
const fail = handler({
  name: "fail",
  execute: () => {
    throw new Error("broken");
  },
});

describe("sequencer execution", () => {
  it("gives each step the previous step's output and returns the last one", async () => {
    const { run, events } = createTestRun();
    const seq = sequencer({ name: "calc", steps: [double, inc, double] });
    await expect(executeBlock(seq, 3, run)).resolves.toBe(14);
    expect(blockTrail(events)).toEqual([
      "started:calc",
      "started:double",
      "completed:double",
      "started:inc",
      "completed:inc",
      "started:double",
      "completed:double",
      "completed:calc",
    ]);
  });

  it("maps a step's input and keeps named outputs for later steps", async () => {
    const { run } = createTestRun();
    const seq = sequencer({
      name: "named",
      steps: [
        step(double, { as: "doubled" }),
        step(inc, { as: "next" }),
        step(
          handler({
            name: "sum",
            inputSchema: z.tuple([z.number(), z.number()]),
            execute: ([a, b]) => a + b,
          }),
          {
            input: (_prev, _ctx, outputs) => [outputs.doubled, outputs.next],
          },
        ),
      ],
    });
    // 5 → doubled 10 → next 11 → 10 + 11
    await expect(executeBlock(seq, 5, run)).resolves.toBe(21);
  });

  it("validates the sequencer's input before the first step and its output after the last", async () => {
    const { run, events } = createTestRun();
    const seq = sequencer({
      name: "guarded",
      inputSchema: z.number(),
      outputSchema: z.number().max(10),
      steps: [double],
    });
    const badInput = await executeBlock(seq, "3", run).catch((e: unknown) => e);
    expect(hasErrorCode(badInput, "invalid-input")).toBe(true);
    expect(events).toEqual([]);
    const badOutput = await executeBlock(seq, 6, run).catch((e: unknown) => e);
    expect(hasErrorCode(badOutput, "invalid-output")).toBe(true);
  });

  describe("stepIf", () => {
    it("runs the block when the predicate holds", async () => {
      const { run } = createTestRun();
      const seq = sequencer({ name: "cond", steps: [stepIf((n: number) => n > 2, double), inc] });
      await expect(executeBlock(seq, 3, run)).resolves.toBe(7);
    });

    it("skips the block when the predicate is false, passing the previous output through", async () => {
      const { run, events } = createTestRun();
      const execute = vi.fn();
      const seq = sequencer({
        name: "cond",
        steps: [
          stepIf(async () => false, handler({ name: "never", execute }), { as: "skipped" }),
          handler({ name: "after", execute: (n) => n }),
        ],
      });
      await expect(executeBlock(seq, 3, run)).resolves.toBe(3);
      expect(execute).not.toHaveBeenCalled();
      expect(blockTrail(events)).not.toContain("started:never");
    });

    it("leaves the name of a skipped step unset for later steps", async () => {
      const { run } = createTestRun();
      const seq = sequencer({
        name: "cond",
        steps: [
          stepIf(() => false, double, { as: "maybe" }),
          step(handler({ name: "look", inputSchema: z.boolean(), execute: (seen) => seen }), {
            input: (_prev, _ctx, outputs) => "maybe" in outputs,
          }),
        ],
      });
      await expect(executeBlock(seq, 3, run)).resolves.toBe(false);
    });
  });

  describe("parallel", () => {
    it("runs the blocks concurrently on the same input and returns their outputs in order", async () => {
      const { run } = createTestRun();
      let inFlight = 0;
      let maxInFlight = 0;
      const slow = (name: string, value: number) =>
        handler({
          name,
          inputSchema: z.number(),
          execute: async (n) => {
            inFlight++;
            maxInFlight = Math.max(maxInFlight, inFlight);
            await new Promise((resolve) => setTimeout(resolve, 5));
            inFlight--;
            return n * value;
          },
        });
      const seq = sequencer({
        name: "fan",
        steps: [parallel([slow("x2", 2), slow("x3", 3), slow("x4", 4)])],
      });
      await expect(executeBlock(seq, 10, run)).resolves.toEqual([20, 30, 40]);
      expect(maxInFlight).toBe(3);
    });

    it("fails with the first failure and stops siblings before their next block", async () => {
      const { run, events } = createTestRun();
      const laterStep = vi.fn();
      const slowBranch = sequencer({
        name: "slow-branch",
        steps: [
          handler({ name: "wait", execute: () => new Promise((resolve) => setTimeout(resolve, 10)) }),
          handler({ name: "later", execute: laterStep }),
        ],
      });
      const seq = sequencer({ name: "fan", steps: [parallel([fail, slowBranch])] });
      const error = await executeBlock(seq, 1, run).catch((e: unknown) => e);
      expect((error as Error).message).toBe("broken");
      expect(laterStep).not.toHaveBeenCalled();
      // The sibling stops before its next block: "later" never starts.
      expect(blockTrail(events)).not.toContain("started:later");
    });
  });

  describe("rescue", () => {
    it("runs the fallback block on the failed block's input when the block fails", async () => {
      const { run, events } = createTestRun();
      const seq = sequencer({ name: "safe", steps: [step(inc), rescue(fail, double)] });
      await expect(executeBlock(seq, 4, run)).resolves.toBe(10);
      expect(blockTrail(events)).toContain("completed:double");
    });

    it("uses a fallback function's result, given the error and the previous output", async () => {
      const { run } = createTestRun();
      const fallback = vi.fn(
        (error: unknown, prev: unknown) => `${(error as Error).message}:${String(prev)}`,
      );
      const seq = sequencer({ name: "safe", steps: [rescue(fail, fallback)] });
      await expect(executeBlock(seq, 4, run)).resolves.toBe("broken:4");
    });

    it("does not run the fallback when the block succeeds", async () => {
      const { run } = createTestRun();
      const fallback = vi.fn();
      const seq = sequencer({ name: "safe", steps: [rescue(inc, fallback)] });
      await expect(executeBlock(seq, 1, run)).resolves.toBe(2);
      expect(fallback).not.toHaveBeenCalled();
    });

    it("does not rescue an abort of the request", async () => {
      const { run, controller } = createTestRun();
      const fallback = vi.fn(() => "rescued");
      const abortsThenFails = handler({
        name: "aborts",
        execute: () => {
          controller.abort();
          throw new Error("interrupted");
        },
      });
      const seq = sequencer({ name: "safe", steps: [rescue(abortsThenFails, fallback)] });
      await expect(executeBlock(seq, 1, run)).rejects.toThrow("interrupted");
      expect(fallback).not.toHaveBeenCalled();
    });

    it("lets an unrescued failure fail the sequencer without running later steps", async () => {
      const { run } = createTestRun();
      const after = vi.fn();
      const seq = sequencer({ name: "plain", steps: [fail, handler({ name: "after", execute: after })] });
      await expect(executeBlock(seq, 1, run)).rejects.toThrow("broken");
      expect(after).not.toHaveBeenCalled();
    });
  });

  it("stops before the next step once the request is aborted (request-aborted)", async () => {
    const { run, controller, events } = createTestRun();
    const second = vi.fn();
    const seq = sequencer({
      name: "abortable",
      steps: [
        handler({ name: "first", execute: () => controller.abort() }),
        stepIf(() => true, handler({ name: "second", execute: second })),
      ],
    });
    const error = await executeBlock(seq, 1, run).catch((e: unknown) => e);
    expect(hasErrorCode(error, "request-aborted")).toBe(true);
    expect((error as FlowError).message).toContain("step 1");
    expect(second).not.toHaveBeenCalled();
    expect(blockTrail(events)).toEqual(["started:abortable", "started:first", "completed:first"]);
  });
});
