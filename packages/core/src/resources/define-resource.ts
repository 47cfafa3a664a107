import type { z } from "zod";
import { DEFINITION_KIND } from "../brand.js";
import {
  type ClientContentReadPermissions,
  type SingleClientConfig,
  type StateField,
  validateClientConfig,
} from "./client-config.js";
import type { ClientBlockParts, ClientBlockShape, ClientViewOf } from "./client-view.js";
import { resolveContentFile } from "./content-file.js";
import { describeValue } from "./definition-issue.js";
import { deepFreeze, isJsonValue } from "./json-value.js";
import { declaredFields, OptionReader } from "./option-reader.js";
import type { DefaultStateSchema, ResourceOptions, SingleResourceDefinition, StateSchema } from "./types.js";

const OPTIONS = [
  "name",
  "scope",
  "stateSchema",
  "content",
  "contentFile",
  "render",
  "contentTemplate",
  "contentTemplateRef",
  "writable",
  "llmReadable",
  "llmWritable",
  "flowIsolation",
  "sharedToLineage",
  "ref",
  "default",
  "prefetchMode",
  "client",
];

const COLLECTION_ONLY =
  "belongs to collections. Use defineResourceCollection for a set of instances under a key pattern";
const MISPLACED: Record<string, string> = {
  pattern: `pattern ${COLLECTION_ONLY}`,
  maxInstances: `maxInstances ${COLLECTION_ONLY}`,
  eviction: `eviction ${COLLECTION_ONLY}`,
  prefetchWindow: `prefetchWindow ${COLLECTION_ONLY}`,
  onInstanceCreated: `onInstanceCreated ${COLLECTION_ONLY}`,
  onInstanceUpdated: `onInstanceUpdated ${COLLECTION_ONLY}`,
  onInstanceDeleted: `onInstanceDeleted ${COLLECTION_ONLY}`,
  read: "read belongs to external collections. Use defineExternalCollection",
  search: "search belongs to external collections. Use defineExternalCollection",
};

/**
 * Defines a single resource: one content body plus typed state at session, user or org scope. Every option is
 * checked now; a bad one throws a `DefinitionError` naming the resource, the option and the fix.
 * @example
 * const brief = defineResource({
 *   name: "brief",
 *   scope: "session",
 *   stateSchema: z.object({ approved: z.boolean().default(false) }),
 *   contentFile: { path: "./brief.md", importerUrl: import.meta.url },
 *   client: { content: { read: true }, expose: ["approved"] },
 * });
 */
export function defineResource<
  TSchema extends StateSchema = DefaultStateSchema,
  const TExpose extends readonly StateField<z.output<TSchema>>[] = never,
  const TExclude extends readonly StateField<z.output<TSchema>>[] = never,
  TData = never,
  const TContent extends ClientContentReadPermissions = {},
>(
  options: ResourceOptions<
    TSchema,
    SingleClientConfig<z.output<TSchema>> &
      ClientBlockParts<z.output<TSchema>, TExpose, TExclude, TData, TContent>
  >,
): SingleResourceDefinition<
  z.output<TSchema>,
  ClientViewOf<"single", z.output<TSchema>, ClientBlockShape<TExpose, TExclude, TData, false, TContent>>
> {
  const reader = new OptionReader("defineResource", options, OPTIONS, MISPLACED);
  const scope = reader.scope();
  const stateSchema = reader.stateSchema();
  const content = reader.string("content");
  const contentFilePath = resolveContentFile(reader);
  const { render, contentTemplate, contentTemplateRef } = reader.rendering(true);
  const { flowIsolation, sharedToLineage } = reader.isolation(scope);
  const prefetchMode = reader.oneOf("prefetchMode", ["eager", "lazy"] as const, "eager");
  const client = validateClientConfig(
    reader.label,
    "single",
    reader.raw("client"),
    declaredFields(stateSchema),
  );
  const definition = {
    [DEFINITION_KIND]: "resource",
    type: "single",
    name: reader.name,
    scope,
    stateSchema,
    content,
    contentFilePath,
    render,
    contentTemplate,
    contentTemplateRef,
    writable: reader.boolean("writable", true),
    llmReadable: reader.boolean("llmReadable", false),
    llmWritable: reader.boolean("llmWritable", false),
    flowIsolation,
    sharedToLineage,
    ref: reader.nonEmptyString("ref"),
    default: parseDefault(reader, stateSchema),
    prefetchMode,
    client,
  } as const;
  return Object.freeze(definition) as unknown as SingleResourceDefinition<
    z.output<TSchema>,
    ClientViewOf<"single", z.output<TSchema>, ClientBlockShape<TExpose, TExclude, TData, false, TContent>>
  >;
}

/** `default` must satisfy the schema now; the stored value is the parsed one (defaults applied), deeply frozen. */
function parseDefault(reader: OptionReader, schema: z.ZodObject): Record<string, unknown> | undefined {
  const value = reader.raw("default");
  if (value === undefined) return undefined;
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    reader.refuse(
      "default",
      `default must be a state object (got ${describeValue(value)})`,
      "Set default to an object that satisfies stateSchema",
    );
  }
  const result = schema.safeParse(value);
  if (!result.success) {
    const issue = result.error.issues[0]!;
    const field = issue.path.map(String).join(".");
    const where = field === "" ? "" : ` at field "${field}"`;
    reader.refuse(
      field === "" ? "default" : `default.${field}`,
      `default does not satisfy stateSchema${where}: ${issue.message}`,
      field === ""
        ? "Fix default so that it satisfies stateSchema"
        : `Fix default.${field} so that it satisfies stateSchema`,
    );
  }
  if (!isJsonValue(result.data)) {
    reader.refuse(
      "default",
      "default parses to a state that is not plain JSON",
      "Keep state JSON: strings, finite numbers, booleans, null, arrays and plain objects",
    );
  }
  return deepFreeze(result.data as Record<string, unknown>);
}
