/**
 * Build-time rules over the resources a flow declares at every level: rule 10 (one definition per
 * accessor name among blocks; flow-level declarations take priority), the storage-overlap rule (two
 * definitions must not address the same stored key), one single resource under two accessors only with a
 * `ref`, and the resource part of rule 11 (`requireUser: false` forbids user-scope resources).
 */
import type { AnyBlock, ResourceMap } from "../blocks/block-definition.js";
import type { AnyResourceDefinition } from "../blocks/resource-ref.js";
import { collectBlockResources } from "../blocks/walk-blocks.js";
import { DefinitionError } from "../errors.js";
import { type BucketFlags, inFlowBucket, singleResourcePath } from "../resources/identity.js";
import { keysWithin, overlappingKey, storedKeySegments } from "../resources/key-overlap.js";
import type { PatternSegment } from "../resources/pattern.js";

export interface Declaration {
  accessor: string;
  definition: AnyResourceDefinition;
  /** `flow "<kind>"` or `block "<name>"`, for messages. */
  declaredBy: string;
  /** Declared in `defineFlow({ resources })` (it takes priority) or on a block. */
  level: "flow" | "block";
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
    level: "flow",
  }));
  for (const root of roots) {
    for (const d of collectBlockResources(root)) {
      out.push({
        accessor: d.accessor,
        definition: d.definition,
        declaredBy: `block "${d.blockName}"`,
        level: "block",
      });
    }
  }
  return out;
}

/**
 * The declarations the runtime uses: every flow-level one, and each block-level one whose accessor the
 * flow does not declare itself (flow-level declarations take priority: a block asking for an accessor
 * the flow declares gets the flow's resource, so its own declaration is never used).
 */
export function effectiveDeclarations(declarations: readonly Declaration[]): Declaration[] {
  const flowLevel = new Set(declarations.filter((d) => d.level === "flow").map((d) => d.accessor));
  return declarations.filter((d) => d.level === "flow" || !flowLevel.has(d.accessor));
}

/**
 * Rule 10: two blocks may not declare different resource definitions under one accessor name (the same
 * definition object is fine). A flow-level declaration is no collision: it takes priority, and every
 * block naming that accessor gets the flow's resource.
 */
export function checkAccessorCollisions(flowKind: string, declarations: readonly Declaration[]): void {
  const first = new Map<string, Declaration>();
  for (const d of declarations) {
    if (d.level === "flow") continue;
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

/**
 * The storage a declaration's keys live in, within one flow and one session (the engine's `resourceAddress`
 * uses the same {@link inFlowBucket} rule). Session scope is one space: a `sharedToLineage` resource resolves to the lineage's
 * root session, which in the root session itself is the session, so it shares storage with the plain
 * session resources there. User and org scope: the flow's own bucket when the resource sets
 * `flowIsolation` or the flow isolates that scope, else the bucket shared by every flow.
 */
function storageOf(def: AnyResourceDefinition, flags: BucketFlags): string {
  if (def.scope === "session") return "session";
  const flowIsolation = "flowIsolation" in def && def.flowIsolation === true;
  return `${def.scope}:${inFlowBucket(def.scope, flowIsolation, flags) ? "flow" : "shared"}`;
}

/**
 * Two different resource definitions of one flow may not be such that every stored key of one is also a
 * key of the other, in the same storage: instances live in one flat map under their full key, so a
 * collection whose pattern covers another resource entirely would list, read, overwrite and delete all of
 * it with its own client and tool permissions (a hidden single resource behind a `*` collection with full
 * client access, `hid/*` behind `hid/**`, two collections on one pattern). Patterns that merely cross
 * (`[topic]/notes` and `files/**` share only `files/notes`) are allowed: the specification's own examples
 * do, and each keeps keys the other cannot reach. The same definition object declared under several
 * accessors is one resource and is fine; external collections store nothing and are not compared;
 * block-level declarations shadowed by a flow-level one are never used and are not compared either.
 * Across flows nothing is checked: sharing a user or org key between flows is how shared data works.
 */
export function checkStorageOverlaps(
  flowKind: string,
  declarations: readonly Declaration[],
  flags: BucketFlags,
): void {
  const candidates: { d: Declaration; storage: string; segments: readonly PatternSegment[] }[] = [];
  for (const d of effectiveDeclarations(declarations)) {
    const segments = storedKeySegments(d.definition, d.accessor);
    if (segments === undefined) continue;
    candidates.push({ d, storage: storageOf(d.definition, flags), segments });
  }
  for (let i = 0; i < candidates.length; i++) {
    for (let j = i + 1; j < candidates.length; j++) {
      const a = candidates[i]!;
      const b = candidates[j]!;
      if (a.d.definition === b.d.definition || a.storage !== b.storage) continue;
      const [inner, outer] = keysWithin(a.segments, b.segments)
        ? [a, b]
        : keysWithin(b.segments, a.segments)
          ? [b, a]
          : [undefined, undefined];
      if (inner === undefined || outer === undefined) continue;
      const key = overlappingKey(a.segments, b.segments);
      if (key === undefined) continue; // keys no pattern can hold (an empty segment): nothing to share
      throw new DefinitionError(
        `Flow "${flowKind}": every stored key of resource "${inner.d.accessor}" (${describe(inner.d)}, declared ` +
          `by ${inner.d.declaredBy}) is also a key of "${outer.d.accessor}" (${describe(outer.d)}, declared by ` +
          `${outer.d.declaredBy}) in ${a.d.definition.scope} scope, for example "${key}": "${outer.d.accessor}" ` +
          `would read, overwrite and delete all of "${inner.d.accessor}"'s data with its own client and tool ` +
          "permissions. Give one of them a key or pattern the other cannot match (for example a distinct " +
          "literal prefix), or declare one definition object under both accessors.",
        {
          rule: "storage-overlap",
          flow: flowKind,
          accessors: [a.d.accessor, b.d.accessor],
          declaredBy: [a.d.declaredBy, b.d.declaredBy],
          scope: a.d.definition.scope,
          key,
        },
      );
    }
  }
}

function describe(d: Declaration): string {
  const def = d.definition;
  return def.type === "single"
    ? `single resource at key "${singleResourcePath(def, d.accessor)}"`
    : `collection "${def.pattern}"`;
}

/**
 * One single resource definition declared under two accessor names (flow level, or on blocks the flow does not
 * shadow) without a `ref`: its stored key is the accessor it is declared under, so the two names would read and
 * write two separate values of what the flow's other rules (rule 10, the storage-overlap check) and a
 * `contentTemplateRef` pointing at the definition treat as one resource. A `ref` names its one stored key, which
 * both accessors then share; a collection's keys are its pattern's under any accessor, and an external collection
 * stores nothing, so neither is refused.
 */
export function checkUnnamedSharedDefinitions(flowKind: string, declarations: readonly Declaration[]): void {
  const first = new Map<object, Declaration>();
  for (const d of effectiveDeclarations(declarations)) {
    const def = d.definition;
    if (def.type !== "single" || def.ref !== undefined) continue;
    const earlier = first.get(def);
    if (earlier === undefined) {
      first.set(def, d);
    } else if (earlier.accessor !== d.accessor) {
      throw new DefinitionError(
        `Flow "${flowKind}": one single resource definition is declared under two accessors, "${earlier.accessor}" ` +
          `(by ${earlier.declaredBy}) and "${d.accessor}" (by ${d.declaredBy}), and has no ref, so each accessor ` +
          `would store its own value (at key "${earlier.accessor}" and at key "${d.accessor}"). Give the ` +
          `definition a ref (for example ref: "${earlier.accessor}") to share one stored value under both ` +
          "accessors, or declare it under one accessor.",
        {
          rule: "unnamed-shared-definition",
          flow: flowKind,
          accessors: [earlier.accessor, d.accessor],
          declaredBy: [earlier.declaredBy, d.declaredBy],
        },
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
