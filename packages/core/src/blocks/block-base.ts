import { DEFINITION_KIND } from "../brand.js";
import type { BlockKind, ResourceMap } from "./block-definition.js";
import type { AnySchema } from "./schema.js";
import {
  assertKnownKeys,
  assertName,
  assertOptions,
  normalizeResources,
  optionalSchema,
  optionalString,
} from "./validate.js";

const COMMON_KEYS = ["name", "description", "inputSchema", "outputSchema", "resources"] as const;

interface BlockBaseFields<TKind extends BlockKind> {
  readonly [DEFINITION_KIND]: "block";
  readonly kind: TKind;
  readonly name: string;
  readonly description: string | undefined;
  readonly inputSchema: AnySchema | undefined;
  readonly outputSchema: AnySchema | undefined;
  readonly resources: ResourceMap;
}

/**
 * Validates the options every block shares and returns them normalized, with `where` (e.g.
 * `handler "addNote"`) for the block's own further checks.
 */
export function blockBase<TKind extends BlockKind>(
  kind: TKind,
  options: unknown,
  ownKeys: readonly string[],
): { base: BlockBaseFields<TKind>; where: string; options: Record<string, unknown> } {
  assertOptions(`${kind}()`, options);
  assertName(`${kind}()`, options.name);
  const where = `${kind} "${options.name}"`;
  assertKnownKeys(where, options, [...COMMON_KEYS, ...ownKeys]);
  const base: BlockBaseFields<TKind> = {
    [DEFINITION_KIND]: "block",
    kind,
    name: options.name,
    description: optionalString(where, "description", options.description),
    inputSchema: optionalSchema(where, "inputSchema", options.inputSchema),
    outputSchema: optionalSchema(where, "outputSchema", options.outputSchema),
    resources: normalizeResources(where, options.resources),
  };
  return { base, where, options };
}
