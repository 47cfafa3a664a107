export type {
  ClientConfigView,
  ClientContentReadPermissions,
  ClientContentWritePermissions,
  ClientProjection,
  CollectionClientConfig,
  ExternalClientConfig,
  SingleClientConfig,
  StateField,
} from "./client-config.js";
export {
  type ClientPermissions,
  clientPermissions,
  hasClientConfig,
  hasClientData,
  isListedInManifest,
  projectClientData,
  projectionOf,
} from "./client-projection.js";
export type {
  ClientBlockParts,
  ClientBlockShape,
  ClientViewOf,
  CollectionClientBlockParts,
  ProjectedClientData,
  ResourceClientKind,
  ResourceClientView,
} from "./client-view.js";
export { defineResourceCollection } from "./define-collection.js";
export { defineExternalCollection } from "./define-external-collection.js";
export { defineResource } from "./define-resource.js";
export { resourceLabel } from "./definition-issue.js";
export { assertFlowLevelResource } from "./flow-level.js";
export {
  isCollectionDefinition,
  isExternalCollectionDefinition,
  isResourceDefinition,
  isSingleResourceDefinition,
} from "./guards.js";
export {
  type BucketFlags,
  inFlowBucket,
  parseResourceUri,
  resolveScopeId,
  resourceIdentity,
  type ScopeBinding,
  singleResourcePath,
} from "./identity.js";
export { type LifecycleFields, lifecycleSchema } from "./lifecycle-schema.js";
export { defaultStateSchema } from "./option-reader.js";
export { type CompiledPattern, compilePattern, type PatternKind, type PatternSegment } from "./pattern.js";
export type {
  AnyResourceDefinition,
  AnySingleResourceDefinition,
  CollectionDefinition,
  CollectionOptions,
  ContentFileRef,
  DefaultStateSchema,
  Eviction,
  ExternalCollectionDefinition,
  ExternalCollectionOptions,
  ExternalContext,
  ExternalSearchResult,
  HandleOf,
  InstanceHookContext,
  MaybePromise,
  PatternKey,
  PatternParams,
  PrefetchMode,
  ResourceDefinition,
  ResourceOptions,
  ResourceStateOf,
  SingleResourceDefinition,
  StateSchema,
} from "./types.js";
