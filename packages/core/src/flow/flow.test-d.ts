import { describe, expectTypeOf, it } from "vitest";
import { z } from "zod";
import { handler } from "../blocks/handler.js";
import { defineResourceCollection } from "../resources/index.js";
import type { PrincipalResolutionContext } from "../runtime-types.js";
import { defineFlow } from "./define-flow.js";
import type { FlowDefinition } from "./flow-types.js";

describe("the architecture's application-facing example", () => {
  it("type-checks as written", () => {
    const notes = defineResourceCollection({
      pattern: "notes/*",
      scope: "session",
      stateSchema: z.object({ title: z.string().default("") }),
      client: { content: { read: true, create: true, update: true, delete: true }, state: { read: true } },
    });
    const addNote = handler({
      name: "addNote",
      inputSchema: z.object({ key: z.string(), title: z.string() }),
      execute: async (input, ctx) => {
        await ctx.resources.notes.create(input.key, { title: input.title });
        await ctx.session.incState({ added: 1 });
        return { ok: true };
      },
    });
    const notebook = defineFlow({
      kind: "notebook",
      authentication: { resolvePrincipal: async (c) => ({ userId: c.request?.headers["x-user"] }) },
      session: { stateSchema: z.object({ added: z.number().default(0) }), client: { expose: ["added"] } },
      resources: { notes },
      actions: { addNote: { block: addNote } },
    });
    // defineFlow also records what clients see of the flow (its `~client` view), so the definition is a
    // FlowDefinition<{ added: number }> with that view rather than exactly the three-parameter type.
    expectTypeOf(notebook).toExtend<FlowDefinition<{ added: number }>>();
    expectTypeOf<NonNullable<(typeof notebook)["~types"]>["session"]>().toEqualTypeOf<{ added: number }>();
  });
});

describe("defineFlow types", () => {
  const stateSchema = z.object({ added: z.number().default(0), secret: z.string().default("") });

  it("checks expose against the scope's schema", () => {
    defineFlow({ kind: "f", session: { stateSchema, client: { expose: ["added", "secret"] } } });
    // @ts-expect-error "missing" is not a field of the schema
    defineFlow({ kind: "f", session: { stateSchema, client: { expose: ["missing"] } } });
  });

  it("types derived values' state argument from the scope's schema", () => {
    defineFlow({
      kind: "f",
      user: {
        stateSchema,
        client: {
          derived: {
            doubled: (state) => {
              expectTypeOf(state).toEqualTypeOf<{ added: number; secret: string }>();
              return state.added * 2;
            },
          },
        },
      },
    });
  });

  it("types flow callbacks' ctx from the flow's schemas and resources", () => {
    const ping = handler({ name: "ping", execute: () => "pong" });
    defineFlow({
      kind: "f",
      session: { stateSchema },
      actions: {
        ping: {
          block: ping,
          onCompleted: (_output, ctx) => {
            expectTypeOf(ctx.session.state).toEqualTypeOf<{ added: number; secret: string }>();
          },
        },
      },
    });
  });

  it("accepts a resolver returning header values, null or a principal", () => {
    type Resolver = NonNullable<
      NonNullable<Parameters<typeof defineFlow>[0]["authentication"]>["resolvePrincipal"]
    >;
    expectTypeOf<(c: PrincipalResolutionContext) => null>().toExtend<Resolver>();
    expectTypeOf<(c: PrincipalResolutionContext) => Promise<{ userId: string[] }>>().toExtend<Resolver>();
  });
});
