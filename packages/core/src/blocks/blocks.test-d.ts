import { describe, expectTypeOf, it } from "vitest";
import { z } from "zod";
import { defineExternalCollection, defineResource, defineResourceCollection } from "../resources/index.js";
import type { CollectionHandle, ExternalCollectionHandle, ResourceHandle } from "../runtime-types.js";
import type { BlockInput, BlockOutput } from "./block-definition.js";
import { generator } from "./generator.js";
import { handler } from "./handler.js";
import { router } from "./router.js";
import { sequencer } from "./sequencer.js";
import { parallel, rescue, step, stepIf } from "./sequencer-steps.js";

const noteSchema = z.object({ title: z.string().default(""), tags: z.array(z.string()).default([]) });
const notes = defineResourceCollection({ pattern: "notes/*", scope: "session", stateSchema: noteSchema });
const profile = defineResource({
  scope: "user",
  stateSchema: z.object({ name: z.string().default(""), visits: z.number().default(0) }),
});
const crm = defineExternalCollection({
  pattern: "companies/*",
  scope: "org",
  stateSchema: z.object({ company: z.string() }),
  read: () => null,
});

describe("handler input and output types", () => {
  it("infers execute's input from inputSchema (parsed) and the block input (as supplied)", () => {
    const h = handler({
      name: "h",
      inputSchema: z.object({ key: z.string(), n: z.number().default(1) }),
      execute: (input) => {
        expectTypeOf(input).toEqualTypeOf<{ key: string; n: number }>();
        return input.key;
      },
    });
    expectTypeOf<BlockInput<typeof h>>().toEqualTypeOf<{ key: string; n?: number | undefined }>();
    expectTypeOf<BlockOutput<typeof h>>().toEqualTypeOf<string>();
  });

  it("types the output from outputSchema and checks execute's result against it", () => {
    const h = handler({
      name: "h",
      outputSchema: z.object({ ok: z.boolean(), count: z.number().default(0) }),
      execute: async () => ({ ok: true }),
    });
    expectTypeOf<BlockOutput<typeof h>>().toEqualTypeOf<{ ok: boolean; count: number }>();
    handler({
      name: "bad",
      outputSchema: z.object({ ok: z.boolean() }),
      // @ts-expect-error the result does not satisfy outputSchema
      execute: async () => ({ ok: "yes" }),
    });
  });

  it("leaves input unknown without inputSchema and infers the output from execute", () => {
    const h = handler({
      name: "h",
      execute: async (input) => {
        expectTypeOf(input).toEqualTypeOf<unknown>();
        return { done: 1 as const };
      },
    });
    expectTypeOf<BlockInput<typeof h>>().toEqualTypeOf<unknown>();
    expectTypeOf<BlockOutput<typeof h>>().toEqualTypeOf<{ done: 1 }>();
  });
});

describe("ctx.resources handles from a block's declared resources", () => {
  it("types each declared accessor's handle and state", () => {
    handler({
      name: "h",
      resources: { notes, profile, crm },
      execute: async (_input, ctx) => {
        expectTypeOf(ctx.resources.notes).toEqualTypeOf<
          CollectionHandle<{ title: string; tags: string[] }>
        >();
        expectTypeOf(ctx.resources.profile).toEqualTypeOf<ResourceHandle<{ name: string; visits: number }>>();
        expectTypeOf(ctx.resources.crm).toEqualTypeOf<ExternalCollectionHandle<{ company: string }>>();
        const note = await ctx.resources.notes.create("a", { title: "t" });
        expectTypeOf(note.state.title).toEqualTypeOf<string>();
        await ctx.resources.profile.incState({ visits: 1 });
        // @ts-expect-error name is not a number field
        await ctx.resources.profile.incState({ name: 1 });
        await ctx.resources.notes.get("a").then((n) => n.pushState("tags", "x"));
        // Undeclared accessors (flow-level resources) stay loosely typed.
        expectTypeOf(ctx.resources.other).toEqualTypeOf<any>();
      },
    });
  });
});

describe("ctx.session/user/org state from block-declared schemas", () => {
  it("types ctx.session.state from the session schema", () => {
    handler({
      name: "h",
      session: z.object({ added: z.number().default(0), label: z.string().optional() }),
      user: z.object({ plan: z.enum(["free", "pro"]) }),
      execute: async (_input, ctx) => {
        expectTypeOf(ctx.session.state).toEqualTypeOf<{ added: number; label?: string | undefined }>();
        expectTypeOf(ctx.user.state.plan).toEqualTypeOf<"free" | "pro">();
        await ctx.session.incState({ added: 1 });
        // @ts-expect-error label is not a number field
        await ctx.session.incState({ label: 1 });
        // @ts-expect-error unknown field
        await ctx.session.patchState({ missing: true });
      },
    });
  });

  it("leaves scope state loosely typed without a schema", () => {
    handler({
      name: "h",
      execute: async (_input, ctx) => {
        await ctx.session.incState({ added: 1 });
        await ctx.org.patchState({ anything: "goes" });
        // Every scope handle method, as the architecture lists them, with any field.
        await ctx.session.pushState("tags", "x");
        await ctx.user.pushState("seen", { at: 1 });
        await ctx.org.incState({ members: 1 });
        await ctx.session.getOrPatchState("greeting", () => "hello");
        // @ts-expect-error an element must still be JSON
        await ctx.session.pushState("tags", () => 1);
      },
    });
  });
});

describe("sequencer, router and generator types", () => {
  const toNumber = handler({ name: "toNumber", execute: () => 1 });
  const toText = handler({ name: "toText", execute: () => "one" });

  it("types the sequencer output as the last step's output", () => {
    const seq = sequencer({
      name: "seq",
      inputSchema: z.object({ q: z.string() }),
      steps: [step(toNumber), parallel([toNumber, toText])],
    });
    expectTypeOf<BlockInput<typeof seq>>().toEqualTypeOf<{ q: string }>();
    expectTypeOf<BlockOutput<typeof seq>>().toEqualTypeOf<[number, string]>();
    const bare = sequencer({ name: "bare", steps: [toText, toNumber] });
    expectTypeOf<BlockOutput<typeof bare>>().toEqualTypeOf<number>();
    const rescued = sequencer({ name: "r", steps: [rescue(toNumber, () => "fallback" as const)] });
    expectTypeOf<BlockOutput<typeof rescued>>().toEqualTypeOf<number | "fallback">();
    const conditional = sequencer({ name: "c", steps: [stepIf(() => true, toNumber)] });
    expectTypeOf<BlockOutput<typeof conditional>>().toEqualTypeOf<unknown>();
  });

  it("restricts select to declared route names and unions the routes' outputs", () => {
    const r = router({
      name: "r",
      inputSchema: z.object({ kind: z.enum(["n", "t"]) }),
      routes: { n: toNumber, t: toText },
      select: (input) => input.kind,
    });
    expectTypeOf<BlockOutput<typeof r>>().toEqualTypeOf<number | string>();
    // @ts-expect-error "x" is not a declared route
    router({ name: "bad", routes: { n: toNumber }, select: () => "x" });
  });

  it("types a generator's output as text, or from outputSchema", () => {
    const model = { specificationVersion: "v3", provider: "test", modelId: "m" };
    const text = generator({ name: "g", model, prompt: "hi" });
    expectTypeOf<BlockOutput<typeof text>>().toEqualTypeOf<string>();
    const structured = generator({
      name: "g",
      model: "openai/gpt-5",
      inputSchema: z.object({ topic: z.string() }),
      prompt: (input) => `Write about ${input.topic}`,
      outputSchema: z.object({ title: z.string() }),
    });
    expectTypeOf<BlockOutput<typeof structured>>().toEqualTypeOf<{ title: string }>();
  });
});
