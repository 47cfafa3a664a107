import { definitionKindOf } from "../brand.js";
import type {
  AnyResourceDefinition,
  CollectionDefinition,
  ExternalCollectionDefinition,
  SingleResourceDefinition,
} from "./types.js";

const RESOURCE_TYPES = new Set(["single", "collection", "external"]);

/** True for any resource definition (single, collection or external), from any installed copy of core. */
export function isResourceDefinition(value: unknown): value is AnyResourceDefinition {
  return (
    definitionKindOf(value) === "resource" && RESOURCE_TYPES.has((value as { type?: unknown }).type as string)
  );
}

/** True for a `defineResource` result. */
export function isSingleResourceDefinition(value: unknown): value is SingleResourceDefinition<any> {
  return isResourceDefinition(value) && value.type === "single";
}

/** True for a `defineResourceCollection` result (not an external collection). */
export function isCollectionDefinition(value: unknown): value is CollectionDefinition<any> {
  return isResourceDefinition(value) && value.type === "collection";
}

/** True for a `defineExternalCollection` result. */
export function isExternalCollectionDefinition(value: unknown): value is ExternalCollectionDefinition<any> {
  return isResourceDefinition(value) && value.type === "external";
}
