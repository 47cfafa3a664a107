import { type FlowError, handler, hasErrorCode, router } from "@flowrt/core";
import { describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { executeBlock } from "./execute-block.js";
import { blockTrail, createTestRun } from "./testing/test-run.js";

function routes() {
  const small = vi.fn((input: unknown) => `small ${(input as { n: number }).n}`);
  const large = vi.fn((input: unknown) => `large ${(input as { n: number }).n}`);
  return {
    small,
    large,
    block: router({
      name: "size",
      inputSchema: z.object({ n: z.number() }),
      routes: {
        small: handler({ name: "small", execute: small }),
        large: handler({ name: "large", execute: large }),
      },
      select: (input) => (input.n < 10 ? "small" : "large"),
    }),
  };
}

describe("router execution", () => {
  it("runs the selected route on the router's input and returns its output", async () => {
    const { run, events } = createTestRun();
    const { block, small, large } = routes();
    await expect(executeBlock(block, { n: 42 }, run)).resolves.toBe("large 42");
    expect(large).toHaveBeenCalledWith({ n: 42 }, run.ctx);
    expect(small).not.toHaveBeenCalled();
    expect(blockTrail(events)).toEqual([
      "started:size",
      "started:large",
      "completed:large",
      "completed:size",
    ]);
  });

  it("refuses a route it did not declare with route-not-declared, running no route", async () => {
    const { run, events } = createTestRun();
    const execute = vi.fn();
    const block = router({
      name: "picky",
      routes: { only: handler({ name: "only", execute }) },
      select: () => "elsewhere" as "only",
    });
    const error = await executeBlock(block, {}, run).catch((e: unknown) => e);
    expect(hasErrorCode(error, "route-not-declared")).toBe(true);
    expect((error as FlowError).details).toEqual({ block: "picky", route: "elsewhere" });
    expect(execute).not.toHaveBeenCalled();
    expect(blockTrail(events)).toEqual(["started:picky"]);
  });

  it("does not take an inherited property name for a route", async () => {
    const { run } = createTestRun();
    const block = router({
      name: "proto",
      routes: { only: handler({ name: "only", execute: () => "ran" }) },
      select: () => "toString" as "only",
    });
    const error = await executeBlock(block, {}, run).catch((e: unknown) => e);
    expect(hasErrorCode(error, "route-not-declared")).toBe(true);
  });

  it("refuses a non-string selection", async () => {
    const { run } = createTestRun();
    const block = router({
      name: "numeric",
      routes: { only: handler({ name: "only", execute: () => "ran" }) },
      select: () => 0 as unknown as "only",
    });
    const error = await executeBlock(block, {}, run).catch((e: unknown) => e);
    expect(hasErrorCode(error, "route-not-declared")).toBe(true);
    expect((error as FlowError).details).toEqual({ block: "numeric", route: null });
  });

  it("validates the selected route's output against the router's outputSchema", async () => {
    const { run } = createTestRun();
    const block = router({
      name: "checked",
      outputSchema: z.number(),
      routes: { text: handler({ name: "text", execute: () => "not a number" }) },
      select: () => "text",
    });
    const error = await executeBlock(block, {}, run).catch((e: unknown) => e);
    expect(hasErrorCode(error, "invalid-output")).toBe(true);
  });

  it("does not run the route when the request is aborted during select", async () => {
    const { run, controller } = createTestRun();
    const execute = vi.fn();
    const block = router({
      name: "aborting",
      routes: { only: handler({ name: "only", execute }) },
      select: () => {
        controller.abort();
        return "only";
      },
    });
    const error = await executeBlock(block, {}, run).catch((e: unknown) => e);
    expect(hasErrorCode(error, "request-aborted")).toBe(true);
    expect(execute).not.toHaveBeenCalled();
  });
});
