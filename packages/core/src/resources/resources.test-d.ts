import { describe, expectTypeOf, it } from "vitest";
import { z } from "zod";
import type {
  CollectionHandle,
  CollectionKey,
  ExternalCollectionHandle,
  ExternalRecordRef,
  ResourceHandle,
} from "../runtime-types.js";
import type { JsonObject, JsonValue } from "../store/contract.js";
import { defineResourceCollection } from "./define-collection.js";
import { defineExternalCollection } from "./define-external-collection.js";
import { defineResource } from "./define-resource.js";
import { isCollectionDefinition } from "./guards.js";
import { lifecycleSchema } from "./lifecycle-schema.js";
import type {
  AnyResourceDefinition,
  CollectionDefinition,
  ExternalCollectionDefinition,
  HandleOf,
  PatternKey,
  ResourceStateOf,
  SingleResourceDefinition,
} from "./types.js";

const noteSchema = z.object({
  title: z.string().default(""),
  tags: z.array(z.string()).default([]),
  due: z.string().optional(),
});
type Note = { title: string; tags: string[]; due?: string | undefined };

describe("state inference", () => {
  it("a single resource's handle carries the schema's output type", () => {
    const brief = defineResource({ scope: "session", stateSchema: noteSchema });
    expectTypeOf(brief).toEqualTypeOf<SingleResourceDefinition<Note>>();
    expectTypeOf<ResourceStateOf<typeof brief>>().toEqualTypeOf<Note>();
    expectTypeOf<HandleOf<typeof brief>>().toEqualTypeOf<ResourceHandle<Note>>();
    expectTypeOf<HandleOf<typeof brief>["state"]["title"]>().toEqualTypeOf<string>();
    expectTypeOf<HandleOf<typeof brief>["uri"]>().toEqualTypeOf<string>();
  });

  it("a collection's handle carries the schema's output type", () => {
    const notes = defineResourceCollection({ pattern: "notes/*", scope: "user", stateSchema: noteSchema });
    expectTypeOf(notes).toEqualTypeOf<CollectionDefinition<Note>>();
    expectTypeOf<HandleOf<typeof notes>>().toEqualTypeOf<CollectionHandle<Note>>();
    type Instance = Awaited<ReturnType<HandleOf<typeof notes>["get"]>>;
    expectTypeOf<Instance["state"]["tags"]>().toEqualTypeOf<string[]>();
  });

  it("an external collection's handle carries the schema's output type", () => {
    const tickets = defineExternalCollection({
      pattern: "tickets/*",
      scope: "org",
      stateSchema: noteSchema,
      read: async ({ key }) => ({ title: key }),
    });
    expectTypeOf(tickets).toEqualTypeOf<ExternalCollectionDefinition<Note>>();
    expectTypeOf<HandleOf<typeof tickets>>().toEqualTypeOf<ExternalCollectionHandle<Note>>();
    expectTypeOf<Awaited<ReturnType<HandleOf<typeof tickets>["get"]>>>().toEqualTypeOf<
      ExternalRecordRef<Note>
    >();
  });

  it("without stateSchema the state is any JSON object", () => {
    const loose = defineResource({ scope: "session" });
    expectTypeOf<HandleOf<typeof loose>["state"]>().toExtend<JsonObject>();
    expectTypeOf<HandleOf<typeof loose>["state"][string]>().toExtend<JsonValue>();
  });

  it("a schema whose output is not JSON gives a loosely typed handle", () => {
    const dated = defineResource({ scope: "session", stateSchema: z.object({ at: z.date() }) });
    expectTypeOf<HandleOf<typeof dated>>().toEqualTypeOf<ResourceHandle<JsonObject>>();
  });

  it("HandleOf distributes over a union of definitions and guards narrow", () => {
    const def = {} as AnyResourceDefinition;
    if (isCollectionDefinition(def)) expectTypeOf(def.pattern).toEqualTypeOf<string>();
    expectTypeOf<HandleOf<string>>().toEqualTypeOf<never>();
  });
});

describe("option typing", () => {
  it("callbacks receive the typed state", () => {
    defineResource({
      scope: "session",
      stateSchema: noteSchema,
      render: (content, state) => {
        expectTypeOf(content).toEqualTypeOf<string>();
        expectTypeOf(state).toEqualTypeOf<Note>();
        return content;
      },
      client: {
        data: (state) => {
          expectTypeOf(state).toEqualTypeOf<Note>();
          return state.title;
        },
      },
    });
  });

  it("expose and exclude take the schema's field names only", () => {
    defineResource({ scope: "session", stateSchema: noteSchema, client: { expose: ["title", "due"] } });
    defineResourceCollection({
      pattern: "n/*",
      scope: "session",
      stateSchema: noteSchema,
      client: { exclude: ["tags"] },
    });
    // @ts-expect-error: "titel" is not a field of the schema
    defineResource({ scope: "session", stateSchema: noteSchema, client: { expose: ["titel"] } });
    defineExternalCollection({
      pattern: "t/*",
      scope: "org",
      stateSchema: noteSchema,
      read: () => null,
      // @ts-expect-error: "x" is not a field of the schema
      client: { exclude: ["x"] },
    });
  });

  it("client rules 2, 4 and 8 and the collection-only flags are caught by the types too", () => {
    defineResource({
      scope: "session",
      stateSchema: noteSchema,
      // @ts-expect-error: expose and exclude are mutually exclusive
      client: { expose: ["title"], exclude: ["tags"] },
    });
    // @ts-expect-error: create is for collections only
    defineResource({ scope: "session", client: { content: { create: true } } });
    // @ts-expect-error: state.read is for collections only
    defineResource({ scope: "session", client: { state: { read: true } } });
    defineExternalCollection({
      pattern: "t/*",
      scope: "org",
      read: () => null,
      // @ts-expect-error: external collections are read-only
      client: { content: { update: true } },
    });
  });

  it("default is checked against the schema's input type", () => {
    defineResource({ scope: "session", stateSchema: noteSchema, default: { title: "x" } });
    // @ts-expect-error: title must be a string
    defineResource({ scope: "session", stateSchema: noteSchema, default: { title: 1 } });
  });

  it("scope is required and limited to session, user and org", () => {
    // @ts-expect-error: scope is required
    defineResource({ stateSchema: noteSchema });
    // @ts-expect-error: "team" is not a scope
    defineResourceCollection({ pattern: "n/*", scope: "team" });
  });

  it("instance hooks get the full storage key, a string for every pattern", () => {
    defineResourceCollection({
      pattern: "[topic]/notes/[id]",
      scope: "session",
      stateSchema: noteSchema,
      onInstanceCreated: (key, state, ctx) => {
        expectTypeOf(key).toEqualTypeOf<string>();
        expectTypeOf(state).toEqualTypeOf<Note>();
        expectTypeOf(ctx.scopeType).toEqualTypeOf<"session" | "user" | "org">();
      },
    });
    defineResourceCollection({
      pattern: "files/**",
      scope: "session",
      onInstanceDeleted: (key) => expectTypeOf(key).toEqualTypeOf<string>(),
    });
    expectTypeOf<PatternKey<string>>().toEqualTypeOf<CollectionKey>();
  });

  it("external read returns the schema's input or null", () => {
    defineExternalCollection({
      pattern: "t/*",
      scope: "org",
      stateSchema: noteSchema,
      read: async () => ({ title: "a" }),
    });
    defineExternalCollection({ pattern: "t/*", scope: "org", stateSchema: noteSchema, read: () => null });
    defineExternalCollection({
      pattern: "t/*",
      scope: "org",
      stateSchema: noteSchema,
      // @ts-expect-error: tags must be an array of strings
      read: async () => ({ tags: "a" }),
    });
  });
});

describe("lifecycleSchema", () => {
  it("types status as the union of the given statuses and the timestamps as nullable strings", () => {
    const schema = z.object({ ...lifecycleSchema(["queued", "running", "done"]) });
    type State = z.output<typeof schema>;
    expectTypeOf<State["status"]>().toEqualTypeOf<"queued" | "running" | "done">();
    expectTypeOf<State["startedAt"]>().toEqualTypeOf<string | null>();
    expectTypeOf<State["errorMessage"]>().toEqualTypeOf<string | null>();
    expectTypeOf<z.input<typeof schema>["completedAt"]>().toEqualTypeOf<string | null | undefined>();
    const jobs = defineResourceCollection({ pattern: "jobs/*", scope: "session", stateSchema: schema });
    expectTypeOf<ResourceStateOf<typeof jobs>["status"]>().toEqualTypeOf<"queued" | "running" | "done">();
  });
});
