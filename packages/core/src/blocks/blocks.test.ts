import { describe, expect, it } from "vitest";
import { z } from "zod";
import { DEFINITION_KIND } from "../brand.js";
import { defineResourceCollection } from "../resources/index.js";
import { isBlockDefinition } from "./block-definition.js";
import { DEFAULT_GENERATOR_MAX_STEPS, generator } from "./generator.js";
import { handler } from "./handler.js";
import { router } from "./router.js";
import { sequencer } from "./sequencer.js";
import { isSequencerStep, parallel, rescue, step, stepIf } from "./sequencer-steps.js";
import { definitionError } from "./testing/definition-error.js";

const model = { specificationVersion: "v3", provider: "test", modelId: "test-model" };
const noop = handler({ name: "noop", execute: () => null });
const other = handler({ name: "other", execute: () => 1 });

describe("handler", () => {
  it("returns a frozen, branded handler block with normalized options", () => {
    const notes = defineResourceCollection({ pattern: "notes/*", scope: "session" });
    const inputSchema = z.object({ key: z.string() });
    const h = handler({ name: "addNote", inputSchema, resources: { notes }, execute: () => ({ ok: true }) });
    expect(Object.isFrozen(h)).toBe(true);
    expect(h[DEFINITION_KIND]).toBe("block");
    expect(isBlockDefinition(h)).toBe(true);
    expect(h).toMatchObject({ kind: "handler", name: "addNote", inputSchema, outputSchema: undefined });
    expect(h.resources).toEqual({ notes });
    expect(Object.isFrozen(h.resources)).toBe(true);
    expect(noop.resources).toEqual({});
  });

  it("requires a non-empty name and an execute function", () => {
    expect(definitionError(() => handler({ name: " ", execute: () => 1 })).message).toMatch(
      /"name" must be a non-empty/,
    );
    expect(definitionError(() => handler({ name: "h" } as never)).message).toMatch(
      /handler "h": "execute" must be a function/,
    );
    expect(definitionError(() => handler(undefined as never)).message).toMatch(/expected an options object/);
  });

  it("requires zod schemas for inputSchema, outputSchema and the scope typing schemas", () => {
    const notSchema = { parse: () => 1 } as any;
    expect(
      definitionError(() => handler({ name: "h", inputSchema: notSchema, execute: () => 1 })).message,
    ).toMatch(/"inputSchema" must be a zod schema/);
    expect(
      definitionError(() => handler({ name: "h", outputSchema: notSchema, execute: () => 1 })).message,
    ).toMatch(/"outputSchema" must be a zod schema/);
    expect(
      definitionError(() => handler({ name: "h", session: notSchema, execute: () => 1 })).message,
    ).toMatch(/"session" must be a zod schema/);
  });

  it("requires resources to be resource definitions under URL-safe accessors", () => {
    const notes = defineResourceCollection({ pattern: "notes/*", scope: "session" });
    const notResource = definitionError(() =>
      handler({ name: "h", resources: { notes: { type: "collection" } as never }, execute: () => 1 }),
    );
    expect(notResource.message).toMatch(/resource "notes" must be a resource definition/);
    expect(notResource.details).toEqual({ accessor: "notes" });
    expect(
      definitionError(() => handler({ name: "h", resources: { "my notes": notes }, execute: () => 1 }))
        .message,
    ).toMatch(/accessor "my notes" must be non-empty and use only letters/);
    expect(
      definitionError(() => handler({ name: "h", resources: [notes] as never, execute: () => 1 })).message,
    ).toMatch(/"resources" must be an object/);
  });
});

describe("unknown options", () => {
  it("are refused on every block and on step options, naming the option", () => {
    const error = definitionError(() => handler({ name: "h", execute: () => 1, inputschema: {} } as never));
    expect(error.message).toMatch(/handler "h": "inputschema" is not an option here/);
    expect(error.details).toEqual({ option: "inputschema" });
    expect(definitionError(() => sequencer({ name: "s", steps: [noop], step: [] } as never)).message).toMatch(
      /sequencer "s": "step" is not an option/,
    );
    expect(
      definitionError(() => router({ name: "r", routes: { a: noop }, select: () => "a", route: {} } as never))
        .message,
    ).toMatch(/"route" is not an option/);
    expect(
      definitionError(() => generator({ name: "g", model, prompt: "p", max_steps: 2 } as never)).message,
    ).toMatch(/"max_steps" is not an option/);
    expect(definitionError(() => step(noop, { name: "x" } as never)).message).toMatch(
      /step\(\) options: "name" is not an option/,
    );
  });
});

describe("sequencer and its steps", () => {
  it("keeps steps in order and normalizes a bare block to step(block)", () => {
    const seq = sequencer({ name: "seq", steps: [noop, step(other, { as: "second" })] });
    expect(seq.kind).toBe("sequencer");
    expect(seq.steps).toHaveLength(2);
    expect(seq.steps[0]).toMatchObject({ type: "step", block: noop, input: undefined, as: undefined });
    expect(isSequencerStep(seq.steps[0])).toBe(true);
    expect(seq.steps[1]).toMatchObject({ type: "step", block: other, as: "second" });
    expect(Object.isFrozen(seq.steps)).toBe(true);
  });

  it("builds stepIf, parallel and rescue steps", () => {
    const predicate = () => true;
    const fallback = () => "fallback";
    expect(stepIf(predicate, noop)).toMatchObject({ type: "stepIf", predicate, block: noop });
    expect(parallel([noop, other], { as: "both" })).toMatchObject({
      type: "parallel",
      blocks: [noop, other],
      as: "both",
    });
    expect(rescue(noop, fallback)).toMatchObject({ type: "rescue", block: noop, fallback });
    expect(rescue(noop, other)).toMatchObject({ type: "rescue", fallback: other });
  });

  it("refuses an empty or malformed steps list", () => {
    expect(definitionError(() => sequencer({ name: "s", steps: [] })).message).toMatch(
      /"steps" must be a non-empty array/,
    );
    expect(
      definitionError(() => sequencer({ name: "s", steps: [{ type: "step", block: noop }] as never }))
        .message,
    ).toMatch(/steps\[0\] must be a block or made with step\(\)/);
  });

  it("refuses two steps with the same `as` name", () => {
    const error = definitionError(() =>
      sequencer({ name: "s", steps: [step(noop, { as: "x" }), step(other, { as: "x" })] }),
    );
    expect(error.message).toMatch(/two steps are named "x"/);
  });

  it("checks step builder arguments", () => {
    expect(definitionError(() => step({} as never)).message).toMatch(/step\(\): "block" must be a block/);
    expect(definitionError(() => step(noop, { input: "x" as never })).message).toMatch(
      /"input" must be a function/,
    );
    expect(definitionError(() => step(noop, { as: "" })).message).toMatch(/"as" must be a non-empty string/);
    expect(definitionError(() => stepIf(true as never, noop)).message).toMatch(
      /"predicate" must be a function/,
    );
    expect(definitionError(() => parallel([])).message).toMatch(/"blocks" must be a non-empty array/);
    expect(definitionError(() => parallel([noop, 3 as never])).message).toMatch(
      /"blocks\[1\]" must be a block/,
    );
    expect(definitionError(() => rescue(noop, "x" as never)).message).toMatch(
      /"fallback" must be a block or a function/,
    );
  });
});

describe("router", () => {
  it("keeps its declared routes and selector", () => {
    const select = () => "a" as const;
    const r = router({ name: "r", routes: { a: noop, b: other }, select });
    expect(r).toMatchObject({ kind: "router", routes: { a: noop, b: other }, select });
  });

  it("requires at least one route, each a block, and a select function", () => {
    expect(
      definitionError(() => router({ name: "r", routes: {}, select: () => "x" as never })).message,
    ).toMatch(/router "r": declare at least one route/);
    expect(
      definitionError(() => router({ name: "r", routes: { a: {} as never }, select: () => "a" })).message,
    ).toMatch(/"routes.a" must be a block/);
    expect(definitionError(() => router({ name: "r", routes: { a: noop } } as never)).message).toMatch(
      /"select" must be a function/,
    );
  });
});

describe("generator", () => {
  it("applies defaults: maxSteps 5, no content tools, no budget", () => {
    const g = generator({ name: "g", model, prompt: "Say hi" });
    expect(g).toMatchObject({
      kind: "generator",
      model,
      prompt: "Say hi",
      system: undefined,
      user: undefined,
    });
    expect(g).toMatchObject({
      maxSteps: DEFAULT_GENERATOR_MAX_STEPS,
      contentTools: false,
      tokenBudget: undefined,
    });
    expect(DEFAULT_GENERATOR_MAX_STEPS).toBe(5);
  });

  it("accepts a gateway model id string and functions for prompt, system, user and tools", () => {
    const prompt = () => "p";
    const tools = () => ({});
    const g = generator({
      name: "g",
      model: "openai/gpt-5",
      prompt,
      system: "s",
      user: () => "u",
      tools,
      maxSteps: 2,
    });
    expect(g).toMatchObject({ model: "openai/gpt-5", prompt, system: "s", tools, maxSteps: 2 });
  });

  it("refuses a missing or malformed model", () => {
    expect(definitionError(() => generator({ name: "g", prompt: "p" } as never)).message).toMatch(
      /"model" must be an AI SDK language model/,
    );
    expect(definitionError(() => generator({ name: "g", model: "", prompt: "p" })).message).toMatch(
      /"model"/,
    );
    expect(
      definitionError(() => generator({ name: "g", model: { modelId: "m" } as never, prompt: "p" })).message,
    ).toMatch(/"model"/);
  });

  it("checks prompt, system, user, tools, maxSteps, tokenBudget and contentTools", () => {
    const base = { name: "g", model, prompt: "p" };
    expect(definitionError(() => generator({ name: "g", model } as never)).message).toMatch(
      /"prompt" must be a string or a function/,
    );
    expect(definitionError(() => generator({ ...base, system: 1 as never })).message).toMatch(
      /"system" must be/,
    );
    expect(definitionError(() => generator({ ...base, user: 1 as never })).message).toMatch(/"user" must be/);
    expect(definitionError(() => generator({ ...base, tools: [] as never })).message).toMatch(
      /"tools" must be an object/,
    );
    expect(definitionError(() => generator({ ...base, maxSteps: 0 })).message).toMatch(
      /"maxSteps" must be a positive integer/,
    );
    expect(definitionError(() => generator({ ...base, maxSteps: 1.5 })).message).toMatch(/"maxSteps"/);
    expect(definitionError(() => generator({ ...base, tokenBudget: -1 })).message).toMatch(/"tokenBudget"/);
    expect(definitionError(() => generator({ ...base, contentTools: "yes" as never })).message).toMatch(
      /"contentTools" must be a boolean/,
    );
  });
});
