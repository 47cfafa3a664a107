import { type FlowError, handler, hasErrorCode } from "@flowrt/core";
import { describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { executeBlock } from "./execute-block.js";
import { blockTrail, createTestRun } from "./testing/test-run.js";

const add = handler({
  name: "add",
  inputSchema: z.object({ a: z.number(), b: z.number().default(1) }),
  outputSchema: z.object({ sum: z.number() }),
  execute: async (input) => ({ sum: input.a + input.b }),
});

describe("handler execution", () => {
  it("passes the parsed input (defaults applied) and returns the parsed output", async () => {
    const { run } = createTestRun();
    await expect(executeBlock(add, { a: 2 }, run)).resolves.toEqual({ sum: 3 });
  });

  it("emits block.started and block.completed around the block, with its name and kind", async () => {
    const { run, events } = createTestRun();
    await executeBlock(add, { a: 1, b: 1 }, run);
    expect(events).toEqual([
      { type: "block.started", data: { block: "add", kind: "handler" } },
      { type: "block.completed", data: { block: "add", kind: "handler" } },
    ]);
  });

  it("loads the block's declared resources before it runs", async () => {
    const order: string[] = [];
    const { run } = createTestRun();
    run.loadBlockResources = async (block) => {
      order.push(`load:${block.name}`);
    };
    const h = handler({ name: "h", execute: () => order.push("execute") });
    await executeBlock(h, undefined, run);
    expect(order).toEqual(["load:h", "execute"]);
  });

  it("hands the host's context to execute", async () => {
    const { run } = createTestRun();
    const seen = vi.fn();
    await executeBlock(handler({ name: "ctx", execute: (_input, ctx) => seen(ctx) }), undefined, run);
    expect(seen).toHaveBeenCalledWith(run.ctx);
  });

  it("refuses invalid input with invalid-input naming the field, and runs nothing", async () => {
    const { run, events, loaded } = createTestRun();
    const execute = vi.fn();
    const h = handler({ name: "typed", inputSchema: z.object({ title: z.string() }), execute });
    const error = await executeBlock(h, { title: 42 }, run).catch((e: unknown) => e);
    expect(hasErrorCode(error, "invalid-input")).toBe(true);
    expect((error as FlowError).details).toMatchObject({ block: "typed", field: "title" });
    expect((error as FlowError).message).toContain('"title"');
    expect(execute).not.toHaveBeenCalled();
    expect(events).toEqual([]);
    expect(loaded).toEqual([]);
  });

  it("names the nested field path of an invalid input", async () => {
    const { run } = createTestRun();
    const h = handler({
      name: "nested",
      inputSchema: z.object({ note: z.object({ tags: z.array(z.string()) }) }),
      execute: () => null,
    });
    const error = await executeBlock(h, { note: { tags: ["a", 1] } }, run).catch((e: unknown) => e);
    expect((error as FlowError).details).toMatchObject({ field: "note.tags.1" });
  });

  it("refuses output that fails outputSchema with invalid-output, and emits no block.completed", async () => {
    const { run, events } = createTestRun();
    const h = handler({
      name: "liar",
      outputSchema: z.object({ ok: z.boolean() }),
      execute: async () => ({ ok: "yes" }) as never,
    });
    const error = await executeBlock(h, undefined, run).catch((e: unknown) => e);
    expect(hasErrorCode(error, "invalid-output")).toBe(true);
    expect((error as FlowError).details).toMatchObject({ block: "liar", field: "ok" });
    expect(blockTrail(events)).toEqual(["started:liar"]);
  });

  it("lets a handler's own error through unchanged", async () => {
    const { run } = createTestRun();
    const boom = new Error("boom");
    const h = handler({
      name: "fails",
      execute: () => {
        throw boom;
      },
    });
    await expect(executeBlock(h, undefined, run)).rejects.toBe(boom);
  });

  it("refuses to start a block once the run is aborted (request-aborted), running nothing", async () => {
    const { run, events, controller } = createTestRun();
    const execute = vi.fn();
    controller.abort();
    const error = await executeBlock(handler({ name: "late", execute }), undefined, run).catch(
      (e: unknown) => e,
    );
    expect(hasErrorCode(error, "request-aborted")).toBe(true);
    expect(execute).not.toHaveBeenCalled();
    expect(events).toEqual([]);
  });
});
