export { DEFINITION_KIND, type DefinitionKind, definitionKindOf } from "./brand.js";
export {
  CrossFlowSchemaConflictError,
  DefinitionError,
  ERROR_CODES,
  type ErrorCode,
  FlowError,
  type FlowErrorOptions,
  hasErrorCode,
  isFlowError,
  isPrincipalResolutionError,
  OrgBindingMismatchError,
  PrincipalResolutionError,
  UserBindingMismatchError,
} from "./errors.js";
export * from "./flow/index.js";
// Definition API (resources, flows, blocks): see ./resources/index.ts and ./flow/index.ts.
export * from "./resources/index.js";
export type {
  ArrayKeys,
  BlockContext,
  BlockLogger,
  CollectionHandle,
  CollectionKey,
  ElementOf,
  ExternalCollectionHandle,
  ExternalQuery,
  ExternalRecordRef,
  NumericKeys,
  Principal,
  PrincipalResolutionContext,
  PrincipalResolutionRequest,
  PrincipalResolver,
  ResolvedPrincipal,
  ResourceHandle,
  ResourceIdentity,
  ScopeHandles,
  SessionHandle,
  StateHandle,
} from "./runtime-types.js";
export {
  type CasResult,
  type Fence,
  type JsonObject,
  type JsonPrimitive,
  type JsonValue,
  type Page,
  type ScopeAddress,
  type ScopeKind,
  type ScopeRemoval,
  type ScopeStateStore,
  type SessionListPosition,
  type SessionListQuery,
  type SessionPatch,
  type SessionRecord,
  type SessionRemoval,
  type SessionStore,
  SHARED_BUCKET,
  type Versioned,
  type WriteCap,
  type WriteCondition,
} from "./store/contract.js";
export type { FlowStores } from "./store/flow-stores.js";
export {
  type ActiveRequestEntry,
  type NewRequestEvent,
  type RequestCreateOptions,
  type RequestError,
  type RequestEvent,
  type RequestPatch,
  type RequestRecord,
  type RequestStatus,
  type RequestStore,
  type RequestUpdateEffects,
  type RetentionPolicy,
  TERMINAL_REQUEST_STATUSES,
} from "./store/request-store.js";
export type {
  CountOptions,
  ListOptions,
  ResourceStateRecord,
  ResourceStateTextRecord,
  ResourceStore,
} from "./store/resource-store.js";
export {
  DEFAULT_RETENTION,
  type ResolvedRetention,
  type RetentionOptions,
  resolveRetention,
} from "./store/retention.js";
export {
  isScheduleTick,
  type ScheduleStore,
  type ScheduleTick,
  type ScheduleTickRecord,
  type TickClaim,
  type TickClaimResult,
} from "./store/schedule-store.js";
