/**
 * What the block and flow definitions use of the resource half of core, in one place.
 */
export type { AnyResourceDefinition, HandleOf } from "../resources/index.js";
export { isResourceDefinition } from "../resources/index.js";
