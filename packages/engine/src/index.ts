export type { Caller } from "./access/caller.js";
export { ANONYMOUS_USER_ID, type PrincipalOutcome, resolvePrincipal } from "./access/principal.js";
export {
  type ActionHooks,
  type BlockEventType,
  type BlockRun,
  createTokenBudget,
  executeBlock,
  runAction,
  type TokenBudget,
} from "./execution/blocks/index.js";
export { inboundRouteLabel, type SourcedInboundRoute } from "./flows/inbound-routes.js";
export { FlowRegistry, type RegisteredFlow } from "./flows/registry.js";
export { createFlowHost, DEFAULT_BASE_PATH, FlowHost } from "./host.js";
export type {
  DispatchOptions,
  FlowHostOptions,
  InboundAdapter,
  InboundRequestInfo,
  InboundRoute,
  OpenApiInfo,
  OpenApiOptions,
  OpenApiSecurityScheme,
  WebhookHeaders,
  WebhookProviderDefinition,
} from "./host-options.js";
export {
  createHttpHandler,
  type HttpHandler,
  type HttpHandlerOptions,
  problemResponse,
  requestView,
  sessionView,
} from "./http/handler.js";
export {
  createMountedHandler,
  type MountedHandler,
  type MountedHandlerOptions,
  type MountedRequest,
} from "./http/mount.js";
export { type ProblemDetails, problemFor, STATUS_BY_CODE, statusForError } from "./http/problem.js";
export { DEFAULT_BODY_LIMIT, MAX_JSON_DEPTH, parseCookies } from "./http/request-body.js";
export { REQUEST_ID_HEADER, requestIdOf } from "./http/request-id.js";
export type { InboundRequest } from "./http/routes/inbound.js";
export { formatSseEvent, SSE_HEADERS, SSE_PING, type SseStream, sseFrames } from "./http/sse.js";
export { type HttpRequest, type HttpResponse, json } from "./http/types.js";
export {
  createLogger,
  defaultLogger,
  describeError,
  type HostLogger,
  type LogFn,
  type LoggerOptions,
  type LogLevel,
  serializeError,
  silentLogger,
} from "./logger.js";
export { streamRequestEvents } from "./requests/event-log.js";
export { REQUEST_EVENT_TYPES, type RequestEventType, TERMINAL_EVENT_TYPES } from "./requests/event-types.js";
export type { RequestTarget } from "./requests/new-request.js";
export {
  buildManifest,
  buildSnapshot,
  type ClientResourceApi,
  type ContentTool,
  checkCrossFlowSchemas,
  createClientResourceApi,
  createContentTools,
  createResourceScope,
  type ResourceManifest,
  type ResourceManifestEntry,
  type ResourceRuntimeContext,
  type ResourceScope,
  readResourceContentTool,
  type Snapshot,
  writeResourceContentTool,
} from "./resources/index.js";
export type { ScheduleView } from "./schedules/schedule-listing.js";
export type { EraseUserOptions } from "./sessions/erase-user.js";
export type { PageQuery } from "./sessions/listing-cursor.js";
export {
  MAX_SESSION_METADATA_BYTES,
  MAX_SESSION_TITLE_LENGTH,
  type SessionChange,
} from "./sessions/session-patch.js";
export type { RemovalCounts } from "./sessions/session-remover.js";
export { type CellBackend, StateCell, type StateChange } from "./state/state-cell.js";
export { receiveWebhook, type WebhookOutcome } from "./webhooks/receive-webhook.js";
