import type { z } from "zod";
import { DEFINITION_KIND } from "../brand.js";
import {
  type ClientContentWritePermissions,
  type CollectionClientConfig,
  type StateField,
  validateClientConfig,
} from "./client-config.js";
import type { ClientBlockShape, ClientViewOf, CollectionClientBlockParts } from "./client-view.js";
import { declaredFields, OptionReader } from "./option-reader.js";
import { compilePattern } from "./pattern.js";
import type {
  CollectionDefinition,
  CollectionOptions,
  DefaultStateSchema,
  Eviction,
  StateSchema,
} from "./types.js";

const OPTIONS = [
  "name",
  "pattern",
  "scope",
  "stateSchema",
  "client",
  "llmReadable",
  "llmWritable",
  "maxInstances",
  "eviction",
  "prefetchMode",
  "prefetchWindow",
  "onInstanceCreated",
  "onInstanceUpdated",
  "onInstanceDeleted",
  "sharedToLineage",
  "flowIsolation",
  "ref",
  "contentTemplate",
  "contentTemplateRef",
  "render",
];

const MISPLACED: Record<string, string> = {
  content:
    "content is not a collection option. Write each instance's body with writeContent, or render it with contentTemplate",
  contentFile:
    "contentFile is not a collection option. Write each instance's body with writeContent, or render it with contentTemplate",
  writable: "writable is not a collection option. It applies to single resources (defineResource)",
  default:
    "default is not a collection option. Seed instances through stateSchema defaults or create(key, state)",
  read: "read belongs to external collections. Use defineExternalCollection",
  search: "search belongs to external collections. Use defineExternalCollection",
};

/**
 * Defines a collection: same-shaped resource instances created at runtime under a key pattern
 * (`files/*`, `files/**`, `[topic]/notes`). Every option is checked now.
 * @example
 * const notes = defineResourceCollection({
 *   pattern: "notes/*",
 *   scope: "session",
 *   stateSchema: z.object({ title: z.string().default("") }),
 *   maxInstances: 100,
 *   eviction: "lru",
 *   client: { content: { read: true, create: true }, state: { read: true } },
 * });
 */
export function defineResourceCollection<
  TSchema extends StateSchema = DefaultStateSchema,
  const TPattern extends string = string,
  const TExpose extends readonly StateField<z.output<TSchema>>[] = never,
  const TExclude extends readonly StateField<z.output<TSchema>>[] = never,
  TData = never,
  const TRead extends boolean = false,
  const TContent extends ClientContentWritePermissions = {},
>(
  options: CollectionOptions<
    TSchema,
    TPattern,
    CollectionClientConfig<z.output<TSchema>> &
      CollectionClientBlockParts<z.output<TSchema>, TExpose, TExclude, TData, TRead, TContent>
  >,
): CollectionDefinition<
  z.output<TSchema>,
  ClientViewOf<"collection", z.output<TSchema>, ClientBlockShape<TExpose, TExclude, TData, TRead, TContent>>
> {
  const reader = new OptionReader("defineResourceCollection", options, OPTIONS, MISPLACED, "pattern");
  const compiledPattern = compilePattern(reader.raw("pattern") as string, { name: reader.name });
  const scope = reader.scope();
  const stateSchema = reader.stateSchema();
  const maxInstances = reader.integer(
    "maxInstances",
    1,
    "Set maxInstances to an integer ≥ 1, or leave it out for an unbounded collection",
  );
  const eviction = reader.oneOf<Eviction>("eviction", ["none", "lru", "oldest"], "none");
  const prefetchMode = reader.oneOf("prefetchMode", ["eager", "lazy"] as const, "eager");
  const prefetchWindow =
    reader.integer(
      "prefetchWindow",
      0,
      "Set prefetchWindow to a non-negative integer (0 inlines no items)",
    ) ?? 0;
  // Definition-time error 4.
  if (eviction !== "none" && maxInstances === undefined) {
    reader.refuse(
      "eviction",
      `eviction "${eviction}" needs maxInstances`,
      'Set maxInstances to an integer ≥ 1, or use eviction "none"',
    );
  }
  // Definition-time error 5: a lazy collection only sees loaded instances, so it cannot pick an eviction victim.
  if (prefetchMode === "lazy" && eviction !== "none") {
    reader.refuse(
      "prefetchMode",
      `prefetchMode "lazy" cannot be combined with eviction "${eviction}"`,
      'Use eviction "none" with prefetchMode "lazy", or use prefetchMode "eager"',
    );
  }
  const { flowIsolation, sharedToLineage } = reader.isolation(scope);
  const { render, contentTemplate, contentTemplateRef } = reader.rendering(true);
  const client = validateClientConfig(
    reader.label,
    "collection",
    reader.raw("client"),
    declaredFields(stateSchema),
  );
  const definition = {
    [DEFINITION_KIND]: "resource",
    type: "collection",
    name: reader.name,
    scope,
    stateSchema,
    pattern: compiledPattern.source,
    compiledPattern,
    llmReadable: reader.boolean("llmReadable", false),
    llmWritable: reader.boolean("llmWritable", false),
    maxInstances,
    eviction,
    prefetchMode,
    prefetchWindow,
    onInstanceCreated: reader.func("onInstanceCreated", "(key, state, ctx) => { ... }"),
    onInstanceUpdated: reader.func("onInstanceUpdated", "(key, state, prevState, ctx) => { ... }"),
    onInstanceDeleted: reader.func("onInstanceDeleted", "(key, ctx) => { ... }"),
    sharedToLineage,
    flowIsolation,
    ref: reader.nonEmptyString("ref"),
    render,
    contentTemplate,
    contentTemplateRef,
    client,
  } as const;
  return Object.freeze(definition) as unknown as CollectionDefinition<
    z.output<TSchema>,
    ClientViewOf<"collection", z.output<TSchema>, ClientBlockShape<TExpose, TExclude, TData, TRead, TContent>>
  >;
}
