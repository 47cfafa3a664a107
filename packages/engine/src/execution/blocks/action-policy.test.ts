import { handler, hasErrorCode } from "@flowrt/core";
import { describe, expect, it, vi } from "vitest";
import { callOnCompleted, callOnErrored, runAction } from "./action-policy.js";
import { createTokenBudget } from "./block-run.js";
import { createTestRun } from "./testing/test-run.js";

const ok = handler({ name: "ok", execute: () => ({ done: true }) });
const boom = new Error("boom");
const failing = handler({
  name: "failing",
  execute: () => {
    throw boom;
  },
});

describe("action policy", () => {
  it("calls onCompleted with the output and the context, and returns the output", async () => {
    const { run } = createTestRun();
    const onCompleted = vi.fn();
    const onErrored = vi.fn();
    await expect(runAction({ block: ok, onCompleted, onErrored }, undefined, run)).resolves.toEqual({
      done: true,
    });
    expect(onCompleted).toHaveBeenCalledWith({ done: true }, run.ctx);
    expect(onErrored).not.toHaveBeenCalled();
  });

  it("calls onErrored with the error and rethrows it unchanged", async () => {
    const { run } = createTestRun();
    const onCompleted = vi.fn();
    const onErrored = vi.fn();
    await expect(runAction({ block: failing, onCompleted, onErrored }, undefined, run)).rejects.toBe(boom);
    expect(onErrored).toHaveBeenCalledWith(boom, run.ctx);
    expect(onCompleted).not.toHaveBeenCalled();
  });

  it("an output JSON cannot hold is an error (invalid-output, onErrored), never a completion", async () => {
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    for (const output of [{ amount: 1n }, cyclic]) {
      const { run } = createTestRun();
      const onCompleted = vi.fn();
      const onErrored = vi.fn();
      const odd = handler({ name: "odd", execute: () => output });
      const error = await runAction({ block: odd, onCompleted, onErrored }, undefined, run).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(hasErrorCode(error, "invalid-output")).toBe(true);
      expect((error as Error).message).toMatch(/^The action's output cannot be stored as JSON \(/);
      expect(onErrored).toHaveBeenCalledWith(error, run.ctx);
      expect(onCompleted).not.toHaveBeenCalled();
    }
  });

  it("calls onErrored for an aborted run too", async () => {
    const { run, controller } = createTestRun();
    const onErrored = vi.fn();
    controller.abort();
    await expect(runAction({ block: ok, onErrored }, undefined, run)).rejects.toSatisfy((e) =>
      hasErrorCode(e, "request-aborted"),
    );
    expect(onErrored).toHaveBeenCalledOnce();
  });

  it("logs a throwing onCompleted instead of failing the run", async () => {
    const { run, errors } = createTestRun();
    const onCompleted = vi.fn(async () => {
      throw new Error("webhook down");
    });
    await expect(runAction({ block: ok, onCompleted }, undefined, run)).resolves.toEqual({ done: true });
    expect(errors).toEqual(["onCompleted hook failed: webhook down"]);
  });

  it("logs a throwing onErrored and still surfaces the block's own error", async () => {
    const { run, errors } = createTestRun();
    const onErrored = () => {
      throw new Error("hook broke");
    };
    await expect(runAction({ block: failing, onErrored }, undefined, run)).rejects.toBe(boom);
    expect(errors).toEqual(["onErrored hook failed: hook broke"]);
  });

  it("never rejects from a hook call, even when the logger itself throws", async () => {
    const { run } = createTestRun();
    run.ctx.log.error = () => {
      throw new Error("logger broke");
    };
    const hook = () => {
      throw new Error("hook broke");
    };
    await expect(callOnCompleted({ onCompleted: hook }, 1, run.ctx)).resolves.toBeUndefined();
    await expect(callOnErrored({ onErrored: hook }, boom, run.ctx)).resolves.toBeUndefined();
  });

  it("makes a run budget from the policy's tokenBudget", () => {
    expect(createTokenBudget(500)).toEqual({ limit: 500, used: 0 });
    expect(createTokenBudget()).toEqual({ used: 0 });
  });
});
