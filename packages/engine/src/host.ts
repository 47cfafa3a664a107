import { randomUUID } from "node:crypto";
import {
  DefinitionError,
  FlowError,
  type FlowStores,
  type JsonObject,
  type Principal,
  type PrincipalResolutionContext,
  type RequestEvent,
  type RequestRecord,
  type SessionRecord,
  TERMINAL_REQUEST_STATUSES,
} from "@flowrt/core";
import { storedJson } from "./execution/blocks/json-data.js";
import { parseBlockInput } from "./execution/blocks/validate-io.js";
import { streamRequestEvents } from "./requests/event-stream.js";
import {
  buildManifest,
  buildSnapshot,
  type ClientResourceApi,
  checkCrossFlowSchemas,
  createClientResourceApi,
  createResourceScope,
  editableTemplateWarnings,
  type ResourceManifest,
  type ResourceRuntimeContext,
  type Snapshot,
} from "./resources/index.js";
import { actionInput, prepareAction, requestLogger } from "./execution/action-run.js";
import { bindInboundRoutes, type SourcedInboundRoute } from "./flows/inbound-routes.js";
import { defaultLogger, type HostLogger } from "./logger.js";
import {
  assertedPrincipal,
  type BodyIdentity,
  type PrincipalOutcome,
  principalOfRecord,
  principalWithoutResolver,
  resolveListingCaller,
  resolvePrincipal,
  resolverFor,
} from "./access/principal.js";
import { FlowRegistry, type RegisteredFlow } from "./flows/registry.js";
import { RequestRunner, type RequestRunner as Runner } from "./requests/request-runner.js";
import { orgsDiffer, SessionService } from "./sessions/session-service.js";
import type { Caller, DispatchOptions, FlowHostOptions, WebhookProviderDefinition } from "./host-options.js";

export const DEFAULT_BASE_PATH = "/api/flows";

/** The runtime: flows, sessions, requests and durable work over injected stores. */
export class FlowHost {
  readonly basePath: string;
  readonly stores: FlowStores;
  readonly registry: FlowRegistry;
  readonly sessions: SessionService;
  readonly logger: HostLogger;
  readonly inspector: boolean;
  readonly webhookProviders: Readonly<Record<string, WebhookProviderDefinition>>;
  readonly hostId: string;
  private readonly options: FlowHostOptions;
  private readonly runner: Runner;
  private state: "new" | "started" | "closed" = "new";
  /** The one start of this host, once asked for. */
  private starting: Promise<void> | undefined;
  private recoveryTimer: NodeJS.Timeout | undefined;
  private inbound: SourcedInboundRoute[] | undefined;

  constructor(options: FlowHostOptions) {
    this.options = options;
    this.stores = options.stores;
    this.basePath = normalizeBasePath(options.basePath ?? DEFAULT_BASE_PATH);
    this.logger = options.logger ?? defaultLogger;
    this.inspector = options.inspector ?? process.env.NODE_ENV !== "production";
    this.webhookProviders = { ...(options.webhookProviders ?? {}) };
    this.hostId = options.hostId ?? `host-${randomUUID()}`;
    this.registry = new FlowRegistry(options.flows);
    checkCrossFlowSchemas(
      this.registry.flows.map((f) => f.definition),
      this.logger,
    );
    for (const flow of this.registry.flows)
      for (const warning of editableTemplateWarnings(flow.id, flow.allResources)) this.logger.warn(warning);
    this.sessions = new SessionService(this.stores, this.registry);
    this.runner = new RequestRunner({
      stores: this.stores,
      registry: this.registry,
      logger: this.logger,
      hostId: this.hostId,
      leaseMs: options.leaseMs,
      execute: (run, record, parsedBlockInput) => prepareAction(this, run, record, parsedBlockInput),
    });
  }

  /**
   * The routes of every custom inbound adapter, each tagged with its adapter's source. The adapters'
   * `createBindings` run once, on the first call (from `start()` or a transport mounting the routes,
   * whichever comes first); a malformed adapter or route, or two routes on one method and path, is a
   * `DefinitionError`.
   */
  inboundRoutes(): SourcedInboundRoute[] {
    this.inbound ??= bindInboundRoutes(this.options.inbound, this);
    return [...this.inbound];
  }

  /**
   * Startup checks (webhook providers, inbound routes), then resumes durable work left by a previous host.
   * One start at a time: calls made while it runs share it. A failed start (a database not reachable yet) is
   * not kept: the next call, or the next request, tries again. A host first used without it starts on that
   * first use ({@link ensureStarted}).
   */
  start(): Promise<void> {
    if (this.state === "closed")
      return Promise.reject(new FlowError("host-not-started", "This host was closed; create a new one."));
    // Started already: its first recovery pass failed after the stores were set up (start() rejected with that
    // failure; the periodic passes go on). It does not start twice.
    if (this.state === "started" && this.starting === undefined) return Promise.resolve();
    if (this.starting === undefined) {
      const starting = this.startOnce();
      this.starting = starting;
      starting.catch(() => {
        if (this.starting === starting) this.starting = undefined;
      });
    }
    return this.starting;
  }

  /**
   * Starts a host that was never started (an application that mounted it without `await host.start()`), so
   * its first request is served rather than refused; a started host goes on, a closed one stays closed.
   */
  async ensureStarted(): Promise<void> {
    if (this.state === "new") await this.start();
  }

  private async startOnce(): Promise<void> {
    this.checkWebhookProviders();
    this.inboundRoutes();
    await this.stores.setup?.();
    // Closed while the stores were being set up: it never starts.
    if (this.state === "closed") return;
    this.state = "started";
    // The periodic passes are set up first: a first pass that fails (the store down a moment) rejects start(),
    // and the next passes still resume the durable work.
    this.scheduleRecovery();
    await this.runner.recover();
  }

  private scheduleRecovery(): void {
    const every = this.options.recoveryIntervalMs ?? 2_000;
    const recover = () => {
      this.runner.recover().catch((error: unknown) => {
        this.logger.warn("durable recovery pass failed", { error: String(error) });
      });
    };
    // Without periodic passes, one more once every claim live at start has lapsed: a durable request this
    // host's previous process held (killed and restarted within its lease) is resumed too.
    this.recoveryTimer =
      every > 0 ? setInterval(recover, every) : setTimeout(recover, (this.options.leaseMs ?? 30_000) + 100);
    this.recoveryTimer.unref?.();
  }

  /** Stops taking work, waits for running requests to finish, and closes nothing it did not open. */
  async close(): Promise<void> {
    if (this.state === "closed") return;
    this.state = "closed";
    clearInterval(this.recoveryTimer);
    await this.runner.close();
  }

  get started(): boolean {
    return this.state === "started";
  }

  private checkWebhookProviders(): void {
    for (const [provider, definition] of Object.entries(this.webhookProviders)) {
      const where = `createFlowHost({ webhookProviders }): provider "${provider}"`;
      if (typeof definition !== "object" || definition === null) {
        throw new DefinitionError(`${where} must be an object with a verify function.`);
      }
      if (typeof definition.verify !== "function") {
        throw new DefinitionError(
          `${where} has no verify function; every delivery would be refused. Give it verify(rawBody, headers) => boolean.`,
        );
      }
      for (const hook of ["eventType", "parse", "deliveryId", "acknowledge"] as const) {
        if (definition[hook] !== undefined && typeof definition[hook] !== "function") {
          throw new DefinitionError(`${where}: "${hook}" must be a function when given.`);
        }
      }
    }
    for (const flow of this.registry.flows) {
      for (const [provider, bindings] of Object.entries(flow.definition.webhooks)) {
        const configured = Object.hasOwn(this.webhookProviders, provider)
          ? this.webhookProviders[provider]
          : undefined;
        if (!configured) {
          throw new FlowError(
            "webhook-provider-not-configured",
            `Flow "${flow.id}" declares webhook provider "${provider}", which the host did not configure. ` +
              `Add it to createFlowHost({ webhookProviders: { ${provider}: { verify, eventType } } }).`,
          );
        }
        if (Object.keys(bindings.on).length > 0 && typeof configured.eventType !== "function") {
          throw new DefinitionError(
            `Flow "${flow.id}" routes "${provider}" deliveries with "on", but the host's "${provider}" provider has no eventType extractor.`,
          );
        }
      }
    }
  }

  // --- principals ---------------------------------------------------------------------------

  resolutionContext(
    flow: RegisteredFlow,
    caller: Caller,
    envelope: Partial<PrincipalResolutionContext["envelope"]>,
  ) {
    const context: PrincipalResolutionContext = {
      source: caller.source,
      envelope: { flowKind: flow.kind, flowId: flow.id, metadata: {}, ...envelope },
    };
    if (caller.request) context.request = caller.request;
    if (caller.rawBody) context.rawBody = caller.rawBody;
    return context;
  }

  /**
   * Resolves the caller for `flow`; an asserted principal (trusted in-process caller) wins. Not itself
   * `async`: it hands on the resolver's promise rather than wrapping it in another one.
   */
  principalFor(
    flow: RegisteredFlow,
    caller: Caller,
    envelope: Partial<PrincipalResolutionContext["envelope"]> = {},
    bodyIdentity?: BodyIdentity,
  ): Promise<PrincipalOutcome> {
    // An asserted principal, or no resolver: answered without one, synchronously. Without a resolver nothing
    // reads a resolution context, so none is built (every webhook delivery and development-mode call would
    // otherwise pay for one).
    if (caller.principal || !this.hasResolver(flow)) {
      try {
        return Promise.resolve(
          caller.principal
            ? { principal: assertedPrincipal(flow.definition, caller.principal), authenticated: true }
            : { principal: principalWithoutResolver(flow.definition, bodyIdentity), authenticated: false },
        );
      } catch (error) {
        return Promise.reject(error);
      }
    }
    return resolvePrincipal({
      flow: flow.definition,
      hostResolver: this.options.resolvePrincipal,
      context: this.resolutionContext(flow, caller, envelope),
      logger: this.logger,
      ...(bodyIdentity ? { bodyIdentity } : {}),
    });
  }

  hasResolver(flow: RegisteredFlow): boolean {
    return resolverFor(flow.definition, this.options.resolvePrincipal) !== undefined;
  }

  /**
   * Loads an addressed session and checks its owner, then that the caller names no other org than the
   * session's bound one ({@link SessionService.assertOrgNotContradicted}), before anything else runs. The governing flow is the session's recorded owner. Flows without any resolver are
   * open (development mode).
   */
  async authorizeSession(
    sessionId: string,
    caller: Caller,
  ): Promise<{ session: SessionRecord; flow: RegisteredFlow; principal?: Principal }> {
    const session = await this.sessions.get(sessionId);
    const flow = this.sessions.governingFlow(session);
    if (caller.principal || this.hasResolver(flow)) {
      const { principal } = await this.principalFor(flow, caller, { sessionId });
      this.sessions.assertOwner(session, principal);
      this.sessions.assertOrgNotContradicted(session, principal);
      return { session, flow, principal };
    }
    return { session, flow };
  }

  /** Loads an addressed request and checks its owner (through its session's governing flow). */
  async authorizeRequest(
    requestId: string,
    caller: Caller,
  ): Promise<{ request: RequestRecord; flow: RegisteredFlow }> {
    const request = await this.stores.requests.get(requestId);
    if (!request) throw new FlowError("request-not-found", `No request "${requestId}" exists.`);
    const flow = this.registry.ownerOf(request);
    if (caller.principal || this.hasResolver(flow)) {
      const { principal } = await this.principalFor(flow, caller, { sessionId: request.sessionId });
      // The request's session carries the full owner (user and tenant) and the bound org; the record's
      // userId and orgId are the fallback.
      const session = await this.stores.sessions.get(request.sessionId);
      if (session) this.sessions.assertOwner(session, principal);
      if (principal.userId !== request.userId) {
        throw new FlowError("forbidden", "This request belongs to another owner.");
      }
      this.sessions.assertOrgNotContradicted(
        session ?? { id: request.sessionId, orgId: request.orgId },
        principal,
      );
    }
    return { request, flow };
  }

  // --- sessions -------------------------------------------------------------------------------

  async createSession(
    flowId: string,
    caller: Caller,
    body: {
      sessionId?: string;
      title?: string;
      metadata?: JsonObject;
      userId?: unknown;
      orgId?: unknown;
      parentSessionId?: string;
    } = {},
  ): Promise<SessionRecord> {
    await this.ready();
    const flow = this.registry.get(flowId);
    // Specification: with a resolver, userId and orgId come from the principal; the body's are read only without one.
    const { principal } = await this.principalFor(
      flow,
      caller,
      // A chosen id is the session the resolver is asked about (one may authorize by it).
      body.sessionId !== undefined ? { sessionId: body.sessionId } : {},
      { userId: body.userId, orgId: body.orgId },
    );
    let parent: SessionRecord | undefined;
    if (body.parentSessionId) {
      parent = (await this.authorizeSession(body.parentSessionId, { ...caller, principal })).session;
      // The child is bound to the principal's org: it must be the parent's (naming none is no exception here).
      this.sessions.assertOrgBinding(parent, principal);
    }
    return this.sessions.create({
      flow,
      principal,
      ...(body.sessionId !== undefined ? { sessionId: body.sessionId } : {}),
      ...(body.title !== undefined ? { title: body.title } : {}),
      ...(body.metadata !== undefined ? { metadata: body.metadata } : {}),
      ...(parent ? { parent } : {}),
    });
  }

  async getSession(sessionId: string, caller: Caller): Promise<SessionRecord> {
    return (await this.authorizeSession(sessionId, caller)).session;
  }

  /**
   * The caller's sessions across flows. With a host-level resolver each flow's caller is who governs it says:
   * the host resolver for flows without one of their own, a flow's own resolver for its rows ("the per-flow
   * hook always wins"), each asked without `defaultUserId` (a listing is no action: a default user is no one's
   * caller). Without a host resolver only flows that have no resolver of their own are listed (open by the
   * specification's development default). Never refused: a caller no resolver identifies gets an empty list.
   * `userId` and `flowId` (one value or several, each of which a row must match) only narrow. At most 200, the
   * most recent first.
   */
  async listSessions(caller: Caller, query: ListingQuery = {}): Promise<SessionRecord[]> {
    const pages = await Promise.all(
      (await this.listingScopes(caller, query)).map(async (scope) => {
        const page = await this.stores.sessions.list({
          ...(scope.userId !== undefined ? { userId: scope.userId } : {}),
          flowIds: scope.flowIds,
          limit: LISTING_LIMIT,
        });
        // The store narrows by user; the addressed routes' owner rules (tenant, org) apply too.
        const owner = scope.owner;
        return owner ? page.items.filter((session) => this.sessions.canRead(session, owner)) : page.items;
      }),
    );
    if (pages.length === 1) return pages[0]!;
    return pages
      .flat()
      .sort((a, b) =>
        a.createdAt === b.createdAt ? (a.id < b.id ? 1 : -1) : a.createdAt < b.createdAt ? 1 : -1,
      )
      .slice(0, LISTING_LIMIT);
  }

  /** The caller's active requests, scoped as {@link listSessions}. */
  async listActiveRequests(caller: Caller, query: ListingQuery = {}) {
    const lists = await Promise.all(
      (await this.listingScopes(caller, query)).map(async (scope) => {
        const entries = await this.stores.requests.listActive({
          ...(scope.userId !== undefined ? { userId: scope.userId } : {}),
          flowIds: scope.flowIds,
        });
        const owner = scope.owner;
        if (!owner || entries.length === 0) return entries;
        // An entry carries no tenant or org: its session does (as on the addressed request routes).
        const ids = [...new Set(entries.map((entry) => entry.sessionId))];
        const sessions = new Map(
          await Promise.all(ids.map(async (id) => [id, await this.stores.sessions.get(id)] as const)),
        );
        return entries.filter((entry) => {
          const session = sessions.get(entry.sessionId);
          return !session || this.sessions.canRead(session, owner);
        });
      }),
    );
    // Oldest first across the flows' groups, as one store listing answers.
    return lists.length === 1
      ? lists[0]!
      : lists.flat().sort((a, b) => (a.startedAt < b.startedAt ? -1 : a.startedAt > b.startedAt ? 1 : 0));
  }

  /**
   * What a listing may return, as groups of flows with one caller each: the user to list (`undefined`: any, in
   * open flows), the flows, and the identified caller whose owner rules rows must pass. Empty when nothing can
   * match (no caller identified, or narrowing values that disagree).
   */
  private async listingScopes(caller: Caller, query: ListingQuery): Promise<ListingScope[]> {
    const userId = agreedValue(query.userId);
    const flowId = agreedValue(query.flowId);
    if (userId === null || flowId === null) return [];
    const flows = this.registry.flows.filter((f) => flowId === undefined || f.id === flowId);
    const scope = (principal: Principal | null, of: RegisteredFlow[]): ListingScope[] =>
      // Specification: listings are scoped to the caller and never rejected; an unidentified caller is nobody.
      principal && of.length > 0 && (userId === undefined || userId === principal.userId)
        ? [{ userId: principal.userId, flowIds: of.map((f) => f.id), owner: principal }]
        : [];
    // An asserted principal (a trusted in-process caller) wins over every resolver.
    if (caller.principal) return scope(caller.principal, flows);
    const hostResolver = this.options.resolvePrincipal;
    if (hostResolver) {
      const own = flows.filter((f) => f.definition.authentication.resolvePrincipal !== undefined);
      const governed = flows.filter((f) => f.definition.authentication.resolvePrincipal === undefined);
      const asked = await Promise.all([
        governed.length === 0
          ? null
          : resolveListingCaller(
              hostResolver,
              // Outside any flow: the host resolver answers for every flow it governs.
              {
                source: caller.source,
                ...(caller.request ? { request: caller.request } : {}),
                envelope: { flowKind: "", flowId: "", metadata: {} },
              },
              this.logger,
            ),
        ...own.map((f) =>
          resolveListingCaller(
            f.definition.authentication.resolvePrincipal!,
            this.resolutionContext(f, caller, {}),
            this.logger,
          ),
        ),
      ]);
      return [scope(asked[0]!, governed), ...own.map((f, i) => scope(asked[i + 1]!, [f]))].flat();
    }
    const open = flows.filter((f) => !this.hasResolver(f)).map((f) => f.id);
    return [{ ...(userId !== undefined ? { userId } : {}), flowIds: open }];
  }

  /** Children of a conversation, scoped to the parent's owner, tenant, org and flow (from the stored parent). */
  async listChildren(sessionId: string, caller: Caller): Promise<SessionRecord[]> {
    const { session, flow, principal } = await this.authorizeSession(sessionId, caller);
    // The parent's flow as it governs (a parent stored without an owner is its kind's only instance's, and so
    // are the children dispatched beneath it).
    const children = await this.stores.sessions.listChildren(session.id, {
      userId: session.userId,
      ...(session.orgId ? { orgId: session.orgId } : {}),
      ...(session.tenantId ? { tenantId: session.tenantId } : {}),
      flowId: flow.id,
    });
    // A child of another org than a parent bound to none is not the parent's org's; one bound to a tenant under a
    // parent bound to none is listed only to a caller who owns it, as its own read would be (no endpoint
    // enumerates across owners).
    return children.filter(
      (child) =>
        !orgsDiffer(child, session) && (principal === undefined || this.sessions.isOwner(child, principal)),
    );
  }

  // --- actions and requests -------------------------------------------------------------------

  /**
   * Starts an action. The address is checked against a stored session's owner before any resolver
   * runs; the principal is then resolved and bound to the session (mismatches throw at context
   * creation, with nothing written). Returns once the request is persisted.
   */
  async invoke(
    flowId: string,
    actionName: string,
    caller: Caller,
    body: {
      input?: unknown;
      sessionId?: string;
      userId?: unknown;
      orgId?: unknown;
      parentSessionId?: string;
      metadata?: JsonObject;
    },
  ): Promise<{ request: RequestRecord; session: SessionRecord }> {
    await this.ready();
    const flow = this.registry.get(flowId);
    const action = flow.definition.actions[actionName];
    if (!action || !Object.hasOwn(flow.definition.actions, actionName)) {
      throw new FlowError("action-not-found", `Flow "${flow.id}" has no action "${actionName}".`);
    }
    let session: SessionRecord | undefined;
    if (body.sessionId !== undefined) {
      session = await this.sessions.get(body.sessionId);
      this.sessions.checkAddress(flow, session);
    }
    // Specification, resolution order: without any resolver `body.userId` is read (and `body.orgId`), then
    // `defaultUserId`; still no user is a 401 unless `requireUser: false`. Naming an existing session does
    // not supply one.
    const resolved = await this.principalFor(
      flow,
      caller,
      {
        action: actionName,
        input: body.input,
        ...(body.sessionId ? { sessionId: body.sessionId } : {}),
        metadata: { body: caller.body },
      },
      { userId: body.userId, orgId: body.orgId },
    );
    let { principal } = resolved;
    // Development mode: a body that names no org acts in the named session's org. Only a body naming
    // another org contradicts the binding (as on the addressed routes); a resolver must yield the org.
    if (session?.orgId !== undefined && principal.orgId === undefined && !resolved.authenticated)
      principal = { ...principal, orgId: session.orgId };
    // The input as stored, before any session is made for it: one JSON cannot hold is a 400 that leaves nothing.
    const input = storedJson(body.input, "input");
    let parent: SessionRecord | undefined;
    if (session) {
      this.sessions.assertBinding(session, principal);
    } else if (body.parentSessionId) {
      parent = await this.sessions.get(body.parentSessionId);
      // A child is its parent owner's: the user and org (binding mismatches), then the tenant (403 forbidden,
      // as the parent's addressed routes answer).
      this.sessions.assertBinding(parent, principal);
    }
    // The block's inputSchema runs now, as for a webhook before dispatch: an invalid input is a 400
    // `invalid-input` naming the field, with nothing stored (no session, no request). The run gets the
    // parsed value and does not parse it again (a transforming schema runs once).
    const { block } = action;
    const parsedBlockInput =
      block.inputSchema === undefined
        ? undefined
        : { value: await parseBlockInput(block, actionInput(input, block)) };
    // Checked again after the awaits above: a host that began closing meanwhile makes no session for a
    // request its runner would refuse.
    if (session === undefined) {
      this.assertStarted();
      session = await this.sessions.create({ flow, principal, ...(parent ? { parent } : {}) });
    }
    const request = await this.runner.submit({
      flow,
      session,
      principal,
      target: { type: "action", action },
      input,
      inputIsJson: true,
      ...(parsedBlockInput ? { parsedBlockInput } : {}),
      metadata: { origin: caller.source === "http" ? "action" : caller.source, ...(body.metadata ?? {}) },
    });
    return { request, session };
  }

  /** Custom inbound adapters: an asserted principal wins over the resolver; `responseEmitter: null` is fire-and-forget. */
  async dispatch(
    options: DispatchOptions,
  ): Promise<{ requestId: string; sessionId: string; done: Promise<RequestRecord> }> {
    // An instance id, else the only instance of a kind (as the webhook route does): several are ambiguous.
    const instances = this.registry.instancesOfKind(options.flowKind);
    const flow = this.registry.find(options.flowKind) ?? (instances.length === 1 ? instances[0] : undefined);
    if (!flow) {
      throw new FlowError(
        "flow-not-found",
        instances.length > 1
          ? `Kind "${options.flowKind}" has several instances; dispatch to one by its instance id.`
          : `No flow of kind "${options.flowKind}" is registered.`,
      );
    }
    const caller: Caller = {
      source: options.source,
      ...(options.principal ? { principal: options.principal } : {}),
    };
    const { request, session } = await this.invoke(flow.id, options.action, caller, {
      input: options.input,
      ...(options.sessionId ? { sessionId: options.sessionId } : {}),
      ...(options.parentSessionId ? { parentSessionId: options.parentSessionId } : {}),
      metadata: { origin: options.source, ...(options.metadata ?? {}) },
    });
    const done = this.follow(request.id, options.responseEmitter);
    if (!options.responseEmitter) done.catch(() => {});
    return { requestId: request.id, sessionId: session.id, done };
  }

  /** Streams a request's events to `emit` until it ends, and returns the final record. */
  private async follow(
    requestId: string,
    emit: ((event: RequestEvent) => void) | null,
  ): Promise<RequestRecord> {
    for await (const event of this.events(requestId)) emit?.(event);
    const record = await this.stores.requests.get(requestId);
    if (!record) throw new FlowError("request-not-found", `No request "${requestId}" exists.`);
    return record;
  }

  /** The request's events from `afterSeq` on, replayed then live, ending after the terminal event. */
  events(requestId: string, options: { afterSeq?: number; signal?: AbortSignal } = {}) {
    return streamRequestEvents(this.stores.requests, requestId, {
      ...options,
      isFinished: async () => {
        const record = await this.stores.requests.get(requestId);
        return !record || TERMINAL_REQUEST_STATUSES.includes(record.status);
      },
    });
  }

  async getRequest(requestId: string, caller: Caller): Promise<RequestRecord> {
    return (await this.authorizeRequest(requestId, caller)).request;
  }

  /** Served by a closing host too: aborting what still runs is how its shutdown ends sooner. */
  async abortRequest(requestId: string, caller: Caller): Promise<RequestRecord> {
    await this.authorizeRequest(requestId, caller);
    return this.runner.abort(requestId);
  }

  /** Re-runs a finished action request with the same input; webhook-originated requests are refused. */
  async retryRequest(requestId: string, caller: Caller): Promise<RequestRecord> {
    await this.ready();
    const { request, flow } = await this.authorizeRequest(requestId, caller);
    if (request.metadata.origin === "webhook" || request.action.startsWith("webhook:")) {
      throw new FlowError(
        "not-retryable",
        "Webhook-originated requests cannot be re-run through the retry route.",
      );
    }
    if (!TERMINAL_REQUEST_STATUSES.includes(request.status)) {
      throw new FlowError(
        "not-retryable",
        `Request "${requestId}" is still ${request.status}; abort it or wait.`,
      );
    }
    const action = flow.definition.actions[request.action];
    if (!action)
      throw new FlowError("action-not-found", `Flow "${flow.id}" no longer has "${request.action}".`);
    const session = await this.sessions.get(request.sessionId);
    const principal = principalOfRecord(request, session);
    return this.runner.submit({
      flow,
      session,
      principal,
      target: { type: "action", action },
      input: request.input,
      metadata: { origin: "retry", retryOf: request.id },
    });
  }

  // --- client views of a session's resources --------------------------------------------------

  /** A resource context outside any request: the session owner's identity, no stream to emit to. */
  private clientContext(flow: RegisteredFlow, session: SessionRecord): ResourceRuntimeContext {
    return new ClientCallContext(this.stores, flow, session, this.logger);
  }

  /** The session's client snapshot (projections only; never raw state). */
  async snapshot(sessionId: string, caller: Caller): Promise<Snapshot> {
    const { session, flow } = await this.authorizeSession(sessionId, caller);
    return buildSnapshot(this.clientContext(flow, session), flow.allResources);
  }

  /** The resource manifest: the session must exist; no further permission gate (specification). */
  async manifest(sessionId: string): Promise<ResourceManifest> {
    const session = await this.sessions.get(sessionId);
    const flow = this.sessions.governingFlow(session);
    return buildManifest(flow.kind, flow.allResources);
  }

  /**
   * The client resource operations of a session, after the owner check. They can write, so a closed host refuses
   * them all, reads included, as it refuses actions and session creation (a host never started starts first).
   */
  async resourceApi(sessionId: string, caller: Caller): Promise<ClientResourceApi> {
    await this.ready();
    const { session, flow } = await this.authorizeSession(sessionId, caller);
    return createClientResourceApi(this.clientContext(flow, session), flow.allResources);
  }

  /** Development inspector: unfiltered state of a session, its scopes and every declared resource. */
  async inspect(sessionId: string, caller: Caller): Promise<JsonObject> {
    if (!this.inspector)
      throw new FlowError("inspector-disabled", "The development inspector is disabled on this host.");
    const { session, flow } = await this.authorizeSession(sessionId, caller);
    const scope = createResourceScope(this.clientContext(flow, session), flow.allResources);
    await scope.loadScopes();
    const resources: JsonObject = {};
    for (const accessor of scope.accessors()) {
      const handle = scope.handles[accessor];
      try {
        if (handle && typeof handle.list === "function" && typeof handle.count === "function") {
          const items = await handle.list();
          resources[accessor] = items.map((item: { path: string; state: JsonObject }) => ({
            path: item.path,
            state: item.state,
          }));
        } else if (handle && "state" in handle) {
          await scope.load([accessor]);
          resources[accessor] = {
            path: handle.path,
            state: handle.state,
            content: await handle.readContentRaw(),
          };
        }
      } catch (error) {
        resources[accessor] = { error: error instanceof Error ? error.message : String(error) };
      }
    }
    return JSON.parse(
      JSON.stringify({
        session,
        state: {
          session: scope.scopes.session.state,
          user: scope.scopes.user.state,
          org: scope.scopes.org.state,
        },
        resources,
      }),
    ) as JsonObject;
  }

  /** The runner, for the webhook pipeline and tests. */
  get requests(): Runner {
    return this.runner;
  }

  /** Starts a host never started ({@link ensureStarted}), then refuses if it is closed. */
  private async ready(): Promise<void> {
    await this.ensureStarted();
    this.assertStarted();
  }

  private assertStarted(): void {
    if (this.state !== "started") {
      throw new FlowError(
        "host-not-started",
        this.state === "new" ? "The host has not started." : "This host is closed.",
      );
    }
  }
}

/** Outside a request there is no stream to append to: every emit answers the same settled promise. */
const settled: Promise<void> = Promise.resolve();
const noEmit = (): Promise<void> => settled;

/**
 * The resource context of one client HTTP call: the session owner's identity, no request, no stream.
 * The logger and the signal are built on first use: most client calls never log or hand a signal on.
 */
class ClientCallContext implements ResourceRuntimeContext {
  readonly stores: FlowStores;
  readonly flow: ResourceRuntimeContext["flow"];
  readonly session: SessionRecord;
  readonly principal: Principal;
  readonly requestId = null;
  readonly emit = noEmit;
  readonly #flowId: string;
  readonly #logger: HostLogger;
  #log: ResourceRuntimeContext["log"] | undefined;
  #signal: AbortSignal | undefined;

  constructor(stores: FlowStores, flow: RegisteredFlow, session: SessionRecord, logger: HostLogger) {
    this.stores = stores;
    this.flow = flow.definition;
    this.session = session;
    this.principal = principalOfRecord(session, session);
    this.#flowId = flow.id;
    this.#logger = logger;
  }

  get signal(): AbortSignal {
    this.#signal ??= new AbortController().signal;
    return this.#signal;
  }

  get log(): ResourceRuntimeContext["log"] {
    this.#log ??= requestLogger(this.#logger, { sessionId: this.session.id, flowId: this.#flowId });
    return this.#log;
  }
}

/** The most rows a listing answers. */
const LISTING_LIMIT = 200;

/** Rows a listing may return for one caller: the user (`undefined`: any, in open flows), the flows, the owner. */
interface ListingScope {
  userId?: string;
  flowIds: string[];
  owner?: Principal;
}

/** A listing's narrowing: each of `userId` and `flowId` one value or several, every one of which a row must match. */
export interface ListingQuery {
  userId?: string | readonly string[];
  flowId?: string | readonly string[];
}

/** The one value all given values agree on: `undefined` when none is given, `null` when they differ (no row matches). */
function agreedValue(value: string | readonly string[] | undefined): string | undefined | null {
  if (typeof value === "string") return value;
  if (value === undefined || value.length === 0) return undefined;
  const first = value[0]!;
  return value.every((v) => v === first) ? first : null;
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
