import type {
  AnyFlowDefinition,
  FlowStores,
  JsonObject,
  Principal,
  PrincipalResolver,
  RequestEvent,
  RetentionOptions,
} from "@flowrt/core";
import type { HostLogger, LogLevel } from "./logger.js";
import type { HostTelemetryOptions } from "./telemetry/telemetry-options.js";

/** Request headers as a webhook provider's hooks get them: lower-case names, as Node gives them. */
export type WebhookHeaders = Record<string, string | string[] | undefined>;

/**
 * Host-side webhook provider (specification: WebhookProviderDefinition). `TPayload` is what `parse` returns
 * (by default the parsed JSON body); it defaults to `any`, so `eventType: (payload) => payload.type` compiles
 * as the provider's documentation writes it. Pass `unknown` to have every extractor narrow what it reads.
 */
export interface WebhookProviderDefinition<TPayload = any> {
  /** Verifies the delivery over its exact bytes; false or a throw answers 401. */
  verify(rawBody: Uint8Array, headers: WebhookHeaders): boolean | Promise<boolean>;
  /**
   * The delivery's event type; required when a subscribed flow uses `on`. Anything but a string (`null`,
   * `undefined`, or a header's values when it was sent twice) makes the delivery untyped: ignored with 202.
   */
  eventType?(payload: TPayload, headers: WebhookHeaders): string | string[] | null | undefined;
  /** @default JSON parse of the UTF-8 body */
  parse?(rawBody: Uint8Array, headers: WebhookHeaders): TPayload | Promise<TPayload>;
  /** The delivery's id, recorded at `metadata.webhook.deliveryId`; anything but a non-empty string records none. */
  deliveryId?(payload: TPayload, headers: WebhookHeaders): string | string[] | undefined;
  /** A non-null body is answered with 200 and nothing is dispatched (handshakes). */
  acknowledge?(event: {
    provider: string;
    eventType: string | null;
    payload: TPayload;
    headers: WebhookHeaders;
    rawBody: Uint8Array;
    deliveryId?: string;
  }): unknown;
}

export interface FlowHostOptions {
  /** Flow definitions or named instances (`flow.instance({ id })`). */
  flows: readonly AnyFlowDefinition[];
  /** `createMemoryStores()`, `createFsStores({ dir })` or `createPostgresStores(...)`. */
  stores: FlowStores;
  /** Used for flows that have no resolver of their own. @default none */
  resolvePrincipal?: PrincipalResolver;
  /** Provider name → verifier and extractors. @default {} */
  webhookProviders?: Record<string, WebhookProviderDefinition>;
  /** Where the HTTP API is mounted. @default "/api/flows" */
  basePath?: string;
  /**
   * Serve the development inspector, `GET /sessions/:id/debug` (unfiltered state: on a flow without a resolver,
   * to anyone). Off unless told: `true` here, or `NODE_ENV=development` when this option is not given.
   * @default process.env.NODE_ENV === "development"
   */
  inspector?: boolean;
  /**
   * Where the host's log lines go, in pino's call shape (`logger.info(fields, message)`, `child(bindings)`): a pino
   * instance as it is. `false` writes nothing. @default JSON lines on stderr, pino's fields, from `logLevel` up
   */
  logger?: HostLogger | false;
  /** The default logger's lowest level (ignored when `logger` is given). @default `FLOWRT_LOG_LEVEL`, else "info" */
  logLevel?: LogLevel;
  /** One `info` line per HTTP request (method, route pattern, status, duration, request id). @default true */
  accessLog?: boolean;
  /**
   * Let internal errors' own messages reach clients (problem `detail`, a request record's `error.message`), for
   * development only: they may name file paths, queries or secrets. The `errorId` is there either way. @default false
   */
  exposeErrors?: boolean;
  /**
   * How long a running request's claim holds without renewal; a lapsed claim is taken over. Also how long a claim on a
   * schedule's tick holds before another host may take the tick over (see `src/schedules/README.md`). @default 30_000
   */
  leaseMs?: number;
  /**
   * How often the host looks for durable work left by other hosts (or by this host's previous process).
   * `0` turns the periodic passes off: `start()` makes one pass, and one more once `leaseMs` has passed (so
   * work whose claim was still live at start is resumed too). @default 2_000
   */
  recoveryIntervalMs?: number;
  /** Identifies this host in request claims. @default a random id */
  hostId?: string;
  /**
   * How long finished requests (with their event logs, and the ephemeral sessions of webhook deliveries they leave
   * empty) are kept: the host purges them every `intervalMs`. `false` turns purging off. One default for every
   * store (`DEFAULT_RETENTION` from `@flowrt/core`): 7 days, at most 10 000 finished requests, every 10 minutes.
   * Without it, a `retention` given to the store itself (`createMemoryStores({ retention })`) applies.
   * @default { maxAgeMs: 604_800_000, maxCount: 10_000, intervalMs: 600_000 }
   */
  retention?: RetentionOptions | false;
  /** Custom inbound adapters whose routes a transport mounts beside the API (see `host.inboundRoutes`). @default [] */
  inbound?: InboundAdapter[];
  /**
   * OpenTelemetry settings beyond the spans and metrics every host makes through the global API: the AI SDK's
   * telemetry for generators, spans per store call. See the README's "Telemetry".
   * @default {}
   */
  telemetry?: HostTelemetryOptions;
  /**
   * How long `host.close()` lets running requests finish before it leaves them: a durable one's claim is released
   * (the next recovery pass of any host on the store takes it over), a non-durable one fails with `host-lost`.
   * `close({ graceMs })` overrides it per call. Without either, `close()` waits for every run.
   * @default Infinity
   * @example createFlowHost({ flows, stores, shutdownGraceMs: 8_000 })
   */
  shutdownGraceMs?: number;
  /**
   * How long `GET /readyz` waits for the store's answer (`stores.ping()`) before it reports `"store": "timeout"`
   * with 503. Keep it under the probe's own timeout (Kubernetes: `timeoutSeconds`, default 1 s).
   * @default 500
   */
  readinessTimeoutMs?: number;
  /**
   * What `GET /openapi.json` says beyond the routes: how the principal resolver reads credentials (the security
   * schemes), and the document's `info`. See the README's "OpenAPI".
   * @default { security: [{ type: "http", scheme: "bearer" }] }
   * @example createFlowHost({ flows, stores, openapi: { security: [{ type: "apiKey", in: "header", name: "x-api-key" }] } })
   */
  openapi?: OpenApiOptions;
}

/**
 * One way the principal resolver reads a credential, as an OpenAPI security scheme: an HTTP `Authorization`
 * scheme (`bearer`, `basic`), or a key in a header, a cookie or the query.
 */
export type OpenApiSecurityScheme =
  | { type: "http"; scheme: string; bearerFormat?: string; description?: string }
  | { type: "apiKey"; in: "header" | "cookie" | "query"; name: string; description?: string };

export interface OpenApiOptions {
  /**
   * The credentials the resolver reads; a caller sends any one of them. An empty list says nothing about
   * credentials (no security scheme, and every operation documented without security).
   * @default [{ type: "http", scheme: "bearer" }]
   */
  security?: readonly OpenApiSecurityScheme[];
  /**
   * Merged into the document's `info` (OpenAPI's Info object): a strict linter asks for a `license`.
   * @default { title: "flowrt HTTP API", version: "1" }
   * @example { title: "Notes API", version: "2.3.0", license: { name: "MIT", identifier: "MIT" } }
   */
  info?: OpenApiInfo;
}

/** The fields of OpenAPI's Info object a host may set. */
export interface OpenApiInfo {
  title?: string;
  version?: string;
  summary?: string;
  description?: string;
  termsOfService?: string;
  contact?: { name?: string; url?: string; email?: string };
  license?: { name: string; identifier?: string; url?: string };
}

export interface DispatchOptions {
  source: string;
  flowKind: string;
  action: string;
  input: unknown;
  /** Asserted by a trusted route; wins over any resolver. */
  principal?: Principal;
  sessionId?: string;
  /** Starts the new session beneath this one (lineage). */
  parentSessionId?: string;
  /** Receives the request's events as they happen; `null` is fire-and-forget. */
  responseEmitter: ((event: RequestEvent) => void) | null;
  metadata?: JsonObject;
}

export interface InboundRoute {
  method: string;
  /** The full request path, prefix included (not relative to `basePath`). */
  path: string;
  /**
   * A WHATWG `Request` in, a `Response` out. The engine's transports also pass `info`, what a `Request` cannot say
   * (the client's address); a direct call may leave it out.
   */
  handler(request: Request, info?: InboundRequestInfo): Response | Promise<Response>;
}

/** What the transport knows of an inbound request beside the WHATWG `Request`. */
export interface InboundRequestInfo {
  /**
   * The client's address as the transport trusts it (Express: `req.ip`, so behind a proxy what its `trust proxy`
   * setting says); absent when the transport does not know it.
   */
  remoteAddress?: string;
}

/**
 * A custom inbound adapter (specification: Custom inbound routes). Its routes usually call
 * `host.dispatch(...)`; a route that asserts a principal is trusted, so the application must guard it.
 */
export interface InboundAdapter<THost = unknown> {
  source: string;
  createBindings(host: THost): { routes: InboundRoute[] };
}
