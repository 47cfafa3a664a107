/**
 * Build-time rules over the resources a flow declares at every level: rule 10 (one definition per
 * accessor name) and the resource part of rule 11 (`requireUser: false` forbids user-scope resources).
 */
import type { AnyBlock, ResourceMap } from "../blocks/block-definition.js";
import type { AnyResourceDefinition } from "../blocks/resource-ref.js";
import { collectBlockResources } from "../blocks/walk-blocks.js";
import { DefinitionError } from "../errors.js";

interface Declaration {
  accessor: string;
  definition: AnyResourceDefinition;
  /** `flow "<kind>"` or `block "<name>"`, for messages. */
  declaredBy: string;
}

/** Every resource declaration of a flow: its own `resources`, then each block tree's, in order. */
export function flowResourceDeclarations(
  flowKind: string,
  flowResources: ResourceMap,
  roots: readonly AnyBlock[],
): Declaration[] {
  const out: Declaration[] = Object.entries(flowResources).map(([accessor, definition]) => ({
    accessor,
    definition,
    declaredBy: `flow "${flowKind}"`,
  }));
  for (const root of roots) {
    for (const d of collectBlockResources(root)) {
      out.push({ accessor: d.accessor, definition: d.definition, declaredBy: `block "${d.blockName}"` });
    }
  }
  return out;
}

/**
 * Rule 10: an accessor name means one resource definition across the whole flow. Declaring the same
 * definition object twice is fine; a different one is refused even when one declaration is flow-level
 * (which would take priority at runtime), because the block that declared the other would silently
 * get a resource it did not ask for.
 */
export function checkAccessorCollisions(flowKind: string, declarations: readonly Declaration[]): void {
  const first = new Map<string, Declaration>();
  for (const d of declarations) {
    const earlier = first.get(d.accessor);
    if (earlier === undefined) {
      first.set(d.accessor, d);
    } else if (earlier.definition !== d.definition) {
      throw new DefinitionError(
        `Flow "${flowKind}": resource accessor "${d.accessor}" is declared with two different resource definitions, ` +
          `by ${earlier.declaredBy} and by ${d.declaredBy}. Share one definition object, or rename one accessor.`,
        { rule: 10, flow: flowKind, accessor: d.accessor, declaredBy: [earlier.declaredBy, d.declaredBy] },
      );
    }
  }
}

/** Rule 11, resource part: no user-scope resource anywhere in a `requireUser: false` flow. */
export function checkNoUserScopeResources(flowKind: string, declarations: readonly Declaration[]): void {
  const offending = declarations.find((d) => d.definition.scope === "user");
  if (offending) {
    throw new DefinitionError(
      `Flow "${flowKind}" sets requireUser: false but ${offending.declaredBy} declares user-scope resource ` +
        `"${offending.accessor}"; a flow without user identity cannot hold user-scope resources.`,
      { rule: 11, flow: flowKind, accessor: offending.accessor },
    );
  }
}
