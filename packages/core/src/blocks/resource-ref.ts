/**
 * What the block and flow definitions need to know about resource definitions: a structural type, a guard
 * and the handle type a block receives for one.
 */
import { DEFINITION_KIND, definitionKindOf } from "../brand.js";
import type { CollectionHandle, ExternalCollectionHandle, ResourceHandle } from "../runtime-types.js";
import type { ScopeKind } from "../store/contract.js";
import type { AnySchema, SchemaState } from "./schema.js";

/** The parts of a resource definition that blocks and flows read. */
export interface AnyResourceDefinition {
  readonly [DEFINITION_KIND]: "resource";
  readonly type: "single" | "collection" | "external";
  readonly scope: ScopeKind;
  readonly stateSchema?: AnySchema;
  readonly client?: object;
  readonly name?: string;
  readonly ref?: string;
}

export function isResourceDefinition(value: unknown): value is AnyResourceDefinition {
  return definitionKindOf(value) === "resource";
}

/** The handle `ctx.resources.<accessor>` holds for a resource definition. */
export type HandleOf<TDef> = TDef extends { readonly type: "collection"; readonly stateSchema?: infer S }
  ? CollectionHandle<SchemaState<S>>
  : TDef extends { readonly type: "external"; readonly stateSchema?: infer S }
    ? ExternalCollectionHandle<SchemaState<S>>
    : TDef extends { readonly stateSchema?: infer S }
      ? ResourceHandle<SchemaState<S>>
      : ResourceHandle;
