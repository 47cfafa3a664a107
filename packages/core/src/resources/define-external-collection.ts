import type { z } from "zod";
import { DEFINITION_KIND } from "../brand.js";
import {
  type ClientContentReadPermissions,
  type ExternalClientConfig,
  type StateField,
  validateClientConfig,
} from "./client-config.js";
import type { ClientBlockShape, ClientViewOf, CollectionClientBlockParts } from "./client-view.js";
import { declaredFields, OptionReader } from "./option-reader.js";
import { compilePattern } from "./pattern.js";
import type {
  DefaultStateSchema,
  ExternalCollectionDefinition,
  ExternalCollectionOptions,
  StateSchema,
} from "./types.js";

const OPTIONS = [
  "name",
  "pattern",
  "scope",
  "stateSchema",
  "client",
  "contentTemplate",
  "llmReadable",
  "read",
  "search",
];

const READ_ONLY = "external collections are read-only and read through to the application's store";
const MISPLACED: Record<string, string> = Object.fromEntries(
  [
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
    "render",
    "contentTemplateRef",
    "content",
    "contentFile",
    "writable",
    "default",
  ].map((key) => [
    key,
    `Remove ${key}; ${READ_ONLY}. Use defineResourceCollection for runtime-owned instances`,
  ]),
);

/**
 * Defines an external collection: read-only records that live in the application's own store and are read
 * through `read` (and `search`) on every request. Wildcard patterns only (`x/*`, `x/**`).
 * @example
 * const tickets = defineExternalCollection({
 *   pattern: "tickets/*",
 *   scope: "org",
 *   stateSchema: z.object({ title: z.string(), open: z.boolean() }),
 *   read: async ({ key, ctx }) => db.tickets.find(ctx.scopeId, key),
 *   search: async ({ query, ctx }) => db.tickets.search(ctx.scopeId, query),
 *   client: { state: { read: true } },
 * });
 */
export function defineExternalCollection<
  TSchema extends StateSchema = DefaultStateSchema,
  const TExpose extends readonly StateField<z.output<TSchema>>[] = never,
  const TExclude extends readonly StateField<z.output<TSchema>>[] = never,
  TData = never,
  const TRead extends boolean = false,
  const TContent extends ClientContentReadPermissions = {},
>(
  options: ExternalCollectionOptions<
    TSchema,
    ExternalClientConfig<z.output<TSchema>> &
      CollectionClientBlockParts<z.output<TSchema>, TExpose, TExclude, TData, TRead, TContent>
  >,
): ExternalCollectionDefinition<
  z.output<TSchema>,
  ClientViewOf<"external", z.output<TSchema>, ClientBlockShape<TExpose, TExclude, TData, TRead, TContent>>
> {
  const reader = new OptionReader("defineExternalCollection", options, OPTIONS, MISPLACED, "pattern");
  const compiledPattern = compilePattern(reader.raw("pattern") as string, { name: reader.name });
  // Definition-time error 9: records are addressed by one string key.
  if (compiledPattern.kind === "params") {
    reader.refuse(
      "pattern",
      `pattern "${compiledPattern.source}" uses [name] segments; external collections take wildcard patterns only`,
      'Use a wildcard pattern such as "tickets/*" or "tickets/**"',
    );
  }
  const scope = reader.scope();
  const stateSchema = reader.stateSchema();
  const read = reader.func("read", "async ({ key, ctx }) => state or null");
  if (read === undefined) {
    reader.refuse(
      "read",
      "read is missing",
      "Pass read: async ({ key, ctx }) => the record's state, or null when there is none",
    );
  }
  const { contentTemplate } = reader.rendering(false);
  const client = validateClientConfig(
    reader.label,
    "external",
    reader.raw("client"),
    declaredFields(stateSchema),
  );
  const definition = {
    [DEFINITION_KIND]: "resource",
    type: "external",
    name: reader.name,
    scope,
    stateSchema,
    pattern: compiledPattern.source,
    compiledPattern,
    llmReadable: reader.boolean("llmReadable", false),
    contentTemplate,
    read,
    search: reader.func("search", "async ({ query, ctx }) => ({ hits, nextCursor })"),
    client,
  } as const;
  return Object.freeze(definition) as unknown as ExternalCollectionDefinition<
    z.output<TSchema>,
    ClientViewOf<"external", z.output<TSchema>, ClientBlockShape<TExpose, TExclude, TData, TRead, TContent>>
  >;
}
