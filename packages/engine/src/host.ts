import { randomUUID } from "node:crypto";
import {
  type ActiveRequestEntry,
  type FlowStores,
  type JsonObject,
  type Principal,
  type PrincipalResolutionContext,
  type RequestRecord,
  resolveRetention,
  type SessionRecord,
} from "@flowrt/core";
import { AccessControl } from "./access/access-control.js";
import type { Caller } from "./access/caller.js";
import type { ListingQuery } from "./access/listing-scope.js";
import type { BodyIdentity, PrincipalOutcome } from "./access/principal.js";
import { warnOpenFlows } from "./access/warn-open-flows.js";
import { ActionService, type InvokeBody } from "./actions/action-service.js";
import { prepareAction } from "./execution/action-run.js";
import { checkWebhookProviders } from "./flows/check-webhook-providers.js";
import { bindInboundRoutes, type SourcedInboundRoute } from "./flows/inbound-routes.js";
import { FlowRegistry, type RegisteredFlow } from "./flows/registry.js";
import { checkReadiness, type ReadinessReport } from "./health/readiness.js";
import type { DispatchOptions, FlowHostOptions, WebhookProviderDefinition } from "./host-options.js";
import { type HostLogger, hostLogger } from "./logger.js";
import { type ResolvedOpenApiOptions, resolveOpenApiOptions } from "./openapi-options.js";
import { requestEvents } from "./requests/event-log.js";
import { scheduleRecovery } from "./requests/recovery.js";
import { RequestRunner } from "./requests/request-runner.js";
import { RetentionSchedule } from "./requests/retention.js";
import { checkCrossFlowSchemas, editableTemplateWarnings } from "./resources/index.js";
import { startHostScheduler } from "./schedules/host-scheduler.js";
import { listSchedules, type ScheduleView } from "./schedules/schedule-listing.js";
import { type HostedSchedule, hostedSchedules, type Scheduler } from "./schedules/scheduler.js";
import { ClientViews } from "./sessions/client-views.js";
import { type EraseUserOptions, eraseUser } from "./sessions/erase-user.js";
import type { PageQuery } from "./sessions/listing-cursor.js";
import { LISTING_LIMIT, SessionListings } from "./sessions/session-listings.js";
import type { SessionChange } from "./sessions/session-patch.js";
import { type RemovalCounts, SessionRemover } from "./sessions/session-remover.js";
import { SessionService } from "./sessions/session-service.js";
import { type StartSessionBody, startSession } from "./sessions/start-session.js";
import { updateSession } from "./sessions/update-session.js";
import { StartGate } from "./start-gate.js";
import { traceStores } from "./telemetry/store-spans.js";

export const DEFAULT_BASE_PATH = "/api/flows";

/**
 * The runtime: flows, sessions, requests and durable work over injected stores. The composition root: it builds
 * the services from its options, starts and closes them, and hands each call to the service that owns it
 * (access control, sessions, actions, requests, client views).
 */
export class FlowHost {
  readonly basePath: string;
  readonly stores: FlowStores;
  readonly registry: FlowRegistry;
  readonly sessions: SessionService;
  readonly logger: HostLogger;
  /** Whether an internal error's own message reaches clients (`exposeErrors`; development only). */
  readonly exposeErrors: boolean;
  /** Whether the HTTP layer writes one access line per request (`accessLog`). */
  readonly accessLog: boolean;
  readonly inspector: boolean;
  /** What `GET /openapi.json` says of credentials and in `info` (the `openapi` option, checked). */
  readonly openapi: ResolvedOpenApiOptions;
  readonly webhookProviders: Readonly<Record<string, WebhookProviderDefinition>>;
  readonly hostId: string;
  /** Who the caller is for a flow, and the owner checks of addressed routes. */
  readonly access: AccessControl;
  private readonly options: FlowHostOptions;
  private readonly runner: RequestRunner;
  private readonly gate: StartGate;
  private readonly actions: ActionService;
  private readonly listings: SessionListings;
  private readonly remover: SessionRemover;
  private readonly views: ClientViews;
  private recoveryTimer: NodeJS.Timeout | undefined;
  private readonly retention: RetentionSchedule | undefined;
  /** The flows' schedules, parsed by the startup check; the scheduler that fires them once started. */
  private schedules: readonly HostedSchedule[] = [];
  private scheduler: Scheduler | undefined;
  private inbound: SourcedInboundRoute[] | undefined;
  /** The one drain of this host, once `close()` is called. */
  private closing: Promise<void> | undefined;

  constructor(options: FlowHostOptions) {
    this.options = options;
    this.stores = options.telemetry?.storeSpans === true ? traceStores(options.stores) : options.stores;
    this.basePath = normalizeBasePath(options.basePath ?? DEFAULT_BASE_PATH);
    this.logger = hostLogger(options.logger, options.logLevel);
    this.exposeErrors = options.exposeErrors === true;
    this.accessLog = options.accessLog !== false;
    // Unfiltered state is for development only: on when told, never by default.
    this.inspector = options.inspector ?? process.env.NODE_ENV === "development";
    this.webhookProviders = { ...(options.webhookProviders ?? {}) };
    this.openapi = resolveOpenApiOptions(options.openapi);
    this.hostId = options.hostId ?? `host-${randomUUID()}`;
    this.registry = new FlowRegistry(options.flows);
    checkCrossFlowSchemas(
      this.registry.flows.map((f) => f.definition),
      this.logger,
    );
    for (const flow of this.registry.flows)
      for (const warning of editableTemplateWarnings(flow.id, flow.allResources))
        this.logger.warn({ flowId: flow.id }, warning);
    // The host's own option wins; else what the application gave the store (its own, older, option).
    const retention = resolveRetention(
      options.retention !== undefined ? options.retention : this.stores.retention,
      "createFlowHost",
    );
    this.retention =
      retention === false ? undefined : new RetentionSchedule(this.stores, retention, this.logger);
    this.gate = new StartGate(() => this.startOnce());
    this.sessions = new SessionService(this.stores, this.registry);
    this.access = new AccessControl(
      this.registry,
      this.stores,
      this.sessions,
      options.resolvePrincipal,
      this.logger,
    );
    const runDependencies = {
      stores: this.stores,
      logger: this.logger,
      sessions: this.sessions,
      aiTelemetry: options.telemetry?.ai,
    };
    this.runner = new RequestRunner({
      stores: this.stores,
      registry: this.registry,
      logger: this.logger,
      hostId: this.hostId,
      exposeErrors: this.exposeErrors,
      ...(options.leaseMs !== undefined ? { leaseMs: options.leaseMs } : {}),
      execute: (run, record, parsedBlockInput) =>
        prepareAction(runDependencies, run, record, parsedBlockInput),
    });
    // Nothing to wait for once started: the addressed routes make no promise for it.
    const ready = () => (this.gate.started ? undefined : this.gate.ready());
    this.actions = new ActionService({
      stores: this.stores,
      registry: this.registry,
      access: this.access,
      sessions: this.sessions,
      runner: this.runner,
      ready,
      assertStarted: () => this.gate.assertStarted(),
      events: (requestId) => this.events(requestId),
    });
    this.listings = new SessionListings(this.stores, this.access);
    this.remover = new SessionRemover({
      stores: this.stores,
      access: this.access,
      ready,
      stopRequest: (requestId) => this.runner.stop(requestId),
      whenSettled: (requestId) => this.runner.whenSettled(requestId),
    });
    this.views = new ClientViews({
      stores: this.stores,
      access: this.access,
      sessions: this.sessions,
      logger: this.logger,
      inspector: this.inspector,
      ready,
    });
  }

  /**
   * The routes of every custom inbound adapter, each tagged with its adapter's source. The adapters'
   * `createBindings` run once, on the first call (from `start()` or a transport mounting the routes, whichever
   * comes first); a malformed adapter or route, or two routes on one method and path, is a `DefinitionError`.
   */
  inboundRoutes(): SourcedInboundRoute[] {
    this.inbound ??= bindInboundRoutes(this.options.inbound, this);
    return [...this.inbound];
  }

  // --- start and close ----------------------------------------------------------------------------

  /**
   * Startup checks (webhook providers, inbound routes), then resumes durable work left by a previous host. One
   * start at a time: calls made while it runs share it. A failed start (a database not reachable yet) is not kept:
   * the next call, or the next request, tries again. A host first used without it starts on that first use.
   */
  start(): Promise<void> {
    return this.gate.start();
  }

  /** Starts a host that was never started (mounted without `await host.start()`); a closed one stays closed. */
  ensureStarted(): Promise<void> {
    return this.gate.ensureStarted();
  }

  /** Starts a host never started, then refuses (503 `host-not-started`) if it is closed. */
  ready(): Promise<void> {
    return this.gate.ready();
  }

  get started(): boolean {
    return this.gate.started;
  }

  /** `close()` has begun and not yet finished: the host takes no new work (503 `host-draining`). */
  get draining(): boolean {
    return this.gate.draining;
  }

  /** `close()` has finished. */
  get closed(): boolean {
    return this.gate.closed;
  }

  /** Throws the refusal of a host that takes no work now: `host-draining` while closing, else `host-not-started`. */
  assertStarted(): void {
    this.gate.assertStarted();
  }

  /**
   * `GET /readyz`: started, not draining, and the store answers within `readinessTimeoutMs` (see
   * `health/readiness.ts`). Never throws.
   */
  readiness(): Promise<ReadinessReport> {
    return checkReadiness(this, this.options.readinessTimeoutMs ?? 500);
  }

  private async startOnce(): Promise<void> {
    checkWebhookProviders(this.webhookProviders, this.registry);
    const schedules = hostedSchedules(this.registry);
    this.inboundRoutes();
    await this.stores.setup?.();
    // Closed while the stores were being set up: it never starts.
    if (!this.gate.markStarted()) return;
    warnOpenFlows(this.registry, this.access, this.logger, this.inspector);
    this.retention?.start();
    this.schedules = schedules;
    this.scheduler = startHostScheduler(schedules, {
      stores: this.stores,
      access: this.access,
      registry: this.registry,
      sessions: this.sessions,
      runner: this.runner,
      logger: this.logger,
      hostId: this.hostId,
    });
    // The periodic passes are set up first: a first pass that fails (the store down a moment) rejects start(), and
    // the next passes still resume the durable work.
    // A periodic pass leaves a just-queued durable request to the host that accepted it (see `recover`).
    const intervalMs = this.options.recoveryIntervalMs ?? 2_000;
    this.recoveryTimer = scheduleRecovery(() => this.runner.recover(intervalMs > 0), {
      intervalMs,
      leaseMs: this.options.leaseMs ?? 30_000,
      logger: this.logger,
    });
    await this.runner.recover();
  }

  /**
   * Drains: stops taking work at once (503 `host-draining`, and `GET /readyz` answers 503), lets requests being
   * accepted be stored and started, then waits for running requests, for at most `graceMs` (else the host's
   * `shutdownGraceMs`; without either, as long as they run). Past it, what still runs is left: a durable request's
   * claim is released for the next recovery pass of any host on the store, a non-durable one fails with `host-lost`.
   * Closes nothing it did not open (the stores are the application's). Every call shares the one drain.
   */
  close(options: { graceMs?: number } = {}): Promise<void> {
    if (this.closing) return this.closing;
    if (!this.gate.beginDrain()) return Promise.resolve();
    const graceMs = options.graceMs ?? this.options.shutdownGraceMs ?? Number.POSITIVE_INFINITY;
    clearInterval(this.recoveryTimer);
    // The scheduler first: a tick being fired stores its request before the runner stops taking any.
    const scheduled = this.scheduler?.stop() ?? Promise.resolve();
    this.closing = scheduled
      .then(() => Promise.all([this.runner.close({ graceMs }), this.retention?.stop()]))
      .then(
        () => this.gate.close(),
        (error: unknown) => {
          this.gate.close();
          throw error;
        },
      );
    return this.closing;
  }

  // --- principals and owner checks (see access/) ----------------------------------------------------

  resolutionContext(
    flow: RegisteredFlow,
    caller: Caller,
    envelope: Partial<PrincipalResolutionContext["envelope"]>,
  ): PrincipalResolutionContext {
    return this.access.resolutionContext(flow, caller, envelope);
  }

  /** Resolves the caller for `flow`; an asserted principal (trusted in-process caller) wins. */
  principalFor(
    flow: RegisteredFlow,
    caller: Caller,
    envelope: Partial<PrincipalResolutionContext["envelope"]> = {},
    bodyIdentity?: BodyIdentity,
  ): Promise<PrincipalOutcome> {
    return this.access.principalFor(flow, caller, envelope, bodyIdentity);
  }

  hasResolver(flow: RegisteredFlow): boolean {
    return this.access.hasResolver(flow);
  }

  /** Loads an addressed session and checks its owner and org before anything else runs. */
  authorizeSession(
    sessionId: string,
    caller: Caller,
  ): Promise<{ session: SessionRecord; flow: RegisteredFlow; principal?: Principal }> {
    return this.access.authorizeSession(sessionId, caller);
  }

  /** Loads an addressed request and checks its owner (through its session's governing flow). */
  authorizeRequest(
    requestId: string,
    caller: Caller,
  ): Promise<{ request: RequestRecord; flow: RegisteredFlow }> {
    return this.access.authorizeRequest(requestId, caller);
  }

  // --- sessions (see sessions/) ---------------------------------------------------------------------

  async createSession(flowId: string, caller: Caller, body: StartSessionBody = {}): Promise<SessionRecord> {
    await this.gate.ready();
    return startSession(this, flowId, caller, body);
  }

  async getSession(sessionId: string, caller: Caller): Promise<SessionRecord> {
    return (await this.access.authorizeSession(sessionId, caller)).session;
  }

  /**
   * The caller's sessions across flows, the most recent first (see `sessions/session-listings.ts`): at most 200
   * unless `limit` says fewer, from `cursor` on. {@link listSessionsPage} also answers the next page's cursor.
   */
  async listSessions(caller: Caller, query: ListingQuery & PageQuery = {}): Promise<SessionRecord[]> {
    return (await this.listings.sessionsPage(caller, { ...query, limit: query.limit ?? LISTING_LIMIT }))
      .sessions;
  }

  /** One page of the caller's sessions (`limit` default and most 200) and the next page's cursor (`null` at the end). */
  listSessionsPage(caller: Caller, query: ListingQuery & PageQuery = {}) {
    return this.listings.sessionsPage(caller, query);
  }

  /** The caller's active requests, scoped as {@link listSessions}, oldest first: every one, unless `limit` says fewer. */
  async listActiveRequests(
    caller: Caller,
    query: ListingQuery & PageQuery = {},
  ): Promise<ActiveRequestEntry[]> {
    return (await this.listings.activeRequestsPage(caller, query, query.limit === undefined)).requests;
  }

  /** One page of the caller's active requests (`limit` default and most 200) and the next page's cursor. */
  listActiveRequestsPage(caller: Caller, query: ListingQuery & PageQuery = {}) {
    return this.listings.activeRequestsPage(caller, query);
  }

  /** One page of the requests that ran in a session, newest first, after the owner check. */
  listSessionRequests(sessionId: string, caller: Caller, page: PageQuery = {}) {
    return this.listings.sessionRequestsPage(sessionId, caller, page);
  }

  /** Changes a session's title and metadata, owner-checked (see `sessions/update-session.ts`). */
  updateSession(sessionId: string, caller: Caller, change: SessionChange): Promise<SessionRecord> {
    return updateSession(
      { access: this.access, sessions: this.sessions, ready: () => this.gate.ready() },
      sessionId,
      caller,
      change,
    );
  }

  /**
   * Removes a session, owner-checked: its running requests aborted, the sessions beneath it, everything stored
   * under it (see `sessions/session-remover.ts`). Counts what went.
   */
  deleteSession(sessionId: string, caller: Caller): Promise<RemovalCounts> {
    return this.remover.remove(sessionId, caller);
  }

  /**
   * Erases a user's data: every session of theirs (as {@link deleteSession}), their user-scope data, their request
   * records; org-scope data stays. Administrative: no resolver, no route. See `sessions/erase-user.ts`.
   */
  eraseUser(options: EraseUserOptions): Promise<RemovalCounts> {
    return eraseUser(
      { stores: this.stores, remover: this.remover, stopRequest: (id) => this.runner.stop(id) },
      options,
    );
  }

  /** Children of a conversation, scoped to the parent's owner, tenant, org and flow. */
  listChildren(sessionId: string, caller: Caller): Promise<SessionRecord[]> {
    return this.listings.listChildren(sessionId, caller);
  }

  // --- actions and requests (see actions/, requests/) -----------------------------------------------

  /** Starts an action; returns once its request is persisted (see `actions/action-service.ts`). */
  invoke(
    flowId: string,
    actionName: string,
    caller: Caller,
    body: InvokeBody,
  ): Promise<{ request: RequestRecord; session: SessionRecord }> {
    return this.actions.invoke(flowId, actionName, caller, body);
  }

  /** Custom inbound adapters: an asserted principal wins over the resolver; `responseEmitter: null` is fire-and-forget. */
  dispatch(
    options: DispatchOptions,
  ): Promise<{ requestId: string; sessionId: string; done: Promise<RequestRecord> }> {
    return this.actions.dispatch(options);
  }

  /** The request's events from `afterSeq` on, replayed then live, ending after the terminal event. */
  events(requestId: string, options: { afterSeq?: number; signal?: AbortSignal } = {}) {
    return requestEvents(this.stores.requests, requestId, options);
  }

  async getRequest(requestId: string, caller: Caller): Promise<RequestRecord> {
    return (await this.access.authorizeRequest(requestId, caller)).request;
  }

  /** Served by a closing host too: aborting what still runs is how its shutdown ends sooner. */
  async abortRequest(requestId: string, caller: Caller): Promise<RequestRecord> {
    await this.access.authorizeRequest(requestId, caller);
    return this.runner.abort(requestId);
  }

  /** Re-runs a finished action request with the same input; webhook-originated requests are refused. */
  retryRequest(requestId: string, caller: Caller): Promise<RequestRecord> {
    return this.actions.retry(requestId, caller);
  }

  /**
   * The schedules the caller may see, with their next tick and their newest stored tick (see
   * `schedules/schedule-listing.ts` for who sees which).
   */
  async listSchedules(caller: Caller, query: ListingQuery = {}): Promise<ScheduleView[]> {
    await this.gate.ready();
    return listSchedules(this.access, this.stores, this.schedules, caller, query);
  }

  /** The runner, for the webhook pipeline and tests. */
  get requests(): RequestRunner {
    return this.runner;
  }

  // --- client views of a session's resources (see sessions/client-views.ts) -------------------------

  snapshot(sessionId: string, caller: Caller) {
    return this.views.snapshot(sessionId, caller);
  }

  manifest(sessionId: string) {
    return this.views.manifest(sessionId);
  }

  resourceApi(sessionId: string, caller: Caller) {
    return this.views.resourceApi(sessionId, caller);
  }

  inspect(sessionId: string, caller: Caller): Promise<JsonObject> {
    return this.views.inspect(sessionId, caller);
  }
}

function normalizeBasePath(path: string): string {
  const trimmed = `/${path}`.replace(/\/+/g, "/").replace(/\/$/, "");
  return trimmed === "" ? "" : trimmed;
}

/**
 * Creates a host. `await host.start()` before serving tells startup errors at once (a host not started starts on
 * its first request); `await host.close()` drains.
 */
export function createFlowHost(options: FlowHostOptions): FlowHost {
  return new FlowHost(options);
}
