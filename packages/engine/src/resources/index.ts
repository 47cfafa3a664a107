export { orgMissingError, resourceAddress, scopeStateAddress } from "./address.js";
export {
  type ClientResourceApi,
  type CursorPagination,
  createClientResourceApi,
  type ExternalPagination,
  type ListItem,
  type ListPage,
  type OffsetPagination,
} from "./client-api.js";
export { DEFAULT_PAGE_LIMIT, type ListQuery, MAX_PAGE_LIMIT, parsePagination } from "./client-input.js";
export { editableTemplateWarnings } from "./content.js";
export { renderContentTemplate } from "./content-template.js";
export type { ContentTool } from "./content-tool.js";
export { createContentTools, readResourceContentTool, writeResourceContentTool } from "./content-tools.js";
export type {
  ResourceChangeKind,
  ResourceChangeNotice,
  ResourceEventType,
  ResourceFlowInfo,
  ResourceRuntimeContext,
  ScopeClientView,
  ScopeConfigView,
} from "./context.js";
export { checkCrossFlowSchemas, type SchemaFlow, type SchemaWarningLogger } from "./cross-flow-schemas.js";
export { projectScopeState } from "./events.js";
export { buildManifest, type ResourceManifest, type ResourceManifestEntry } from "./manifest.js";
export { createResourceScope, type ResourceRuntime, type ResourceScope } from "./resource-scope.js";
export { ScopeStateHandle } from "./scope-state.js";
export {
  buildSnapshot,
  type Snapshot,
  type SnapshotCollectionEntry,
  type SnapshotEntry,
  type SnapshotExternalEntry,
  type SnapshotSingleEntry,
} from "./snapshot.js";
