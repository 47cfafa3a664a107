import { describe, expectTypeOf, it } from "vitest";
import { z } from "zod";
import type { ResourceClientView } from "./client-view.js";
import { defineResourceCollection } from "./define-collection.js";
import { defineExternalCollection } from "./define-external-collection.js";
import { defineResource } from "./define-resource.js";

const stateSchema = z.object({
  title: z.string().default(""),
  secret: z.string().default(""),
  due: z.string().optional(),
});
type State = { title: string; secret: string; due?: string | undefined };

/** The `~client` view a definition records (type-level only). */
type ViewOf<T> = T extends { readonly "~client"?: infer V } ? Exclude<V, undefined> : never;

describe("a resource's client view follows its client block", () => {
  it("a collection with state.read publishes its whole state per item, with its content flags", () => {
    const notes = defineResourceCollection({
      pattern: "notes/*",
      scope: "session",
      stateSchema,
      client: { content: { read: true, create: true }, state: { read: true } },
    });
    expectTypeOf<ViewOf<typeof notes>>().toEqualTypeOf<
      ResourceClientView<"collection", State, { readonly read: true; readonly create: true }>
    >();
  });

  it("expose picks fields, exclude drops them, data is what it returns", () => {
    const exposed = defineResourceCollection({
      pattern: "e/*",
      scope: "session",
      stateSchema,
      client: { expose: ["title", "due"], state: { read: true } },
    });
    expectTypeOf<ViewOf<typeof exposed>["clientData"]>().toEqualTypeOf<Pick<State, "title" | "due">>();
    const excluded = defineResource({ scope: "user", stateSchema, client: { exclude: ["secret"] } });
    expectTypeOf<ViewOf<typeof excluded>["clientData"]>().toEqualTypeOf<Omit<State, "secret">>();
    expectTypeOf<ViewOf<typeof excluded>["kind"]>().toEqualTypeOf<"single">();
    const computed = defineExternalCollection({
      pattern: "t/*",
      scope: "org",
      stateSchema,
      read: async () => null,
      client: {
        data: (state) => {
          expectTypeOf(state).toEqualTypeOf<State>();
          return { length: state.title.length };
        },
      },
    });
    expectTypeOf<ViewOf<typeof computed>>().toEqualTypeOf<
      ResourceClientView<"external", { length: number }, {}>
    >();
  });

  it("publishes no clientData without a projection or state.read, and nothing at all without a grant", () => {
    const contentOnly = defineResource({ scope: "session", client: { content: { read: true } } });
    expectTypeOf<ViewOf<typeof contentOnly>["clientData"]>().toBeNever();
    const listless = defineResourceCollection({
      pattern: "l/*",
      scope: "session",
      client: { content: { read: true } },
    });
    expectTypeOf<ViewOf<typeof listless>["clientData"]>().toBeNever();
    const hidden = defineResource({ scope: "session", stateSchema });
    expectTypeOf<ViewOf<typeof hidden>>().toBeUnknown();
    const nothingGranted = defineResourceCollection({ pattern: "n/*", scope: "session", client: {} });
    expectTypeOf<ViewOf<typeof nothingGranted>>().toBeUnknown();
  });

  it("still checks the client block against the schema", () => {
    // @ts-expect-error "missing" is not a field of the state
    defineResource({ scope: "session", stateSchema, client: { expose: ["missing"] } });
    defineResourceCollection({
      pattern: "x/*",
      scope: "session",
      stateSchema,
      // @ts-expect-error expose and exclude are two projections; a block declares at most one (client rule 2)
      client: { expose: ["title"], exclude: ["due"] },
    });
  });
});
