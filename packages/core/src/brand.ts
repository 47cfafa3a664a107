/**
 * Definitions are branded with a registered symbol rather than recognised with `instanceof`, because an
 * application can end up with two copies of `@flowrt/core` installed.
 */
export const DEFINITION_KIND: unique symbol = Symbol.for("flowrt.definition") as never;

export type DefinitionKind = "resource" | "block" | "flow";

export function definitionKindOf(value: unknown): DefinitionKind | undefined {
  if (typeof value !== "object" || value === null) return undefined;
  const kind = (value as { [DEFINITION_KIND]?: unknown })[DEFINITION_KIND];
  return kind === "resource" || kind === "block" || kind === "flow" ? kind : undefined;
}
