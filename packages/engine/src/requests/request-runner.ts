import {
  type ActionDefinition,
  type ActiveRequestEntry,
  type AnyBlock,
  FlowError,
  type FlowStores,
  hasErrorCode,
  isFlowError,
  type JsonObject,
  type JsonValue,
  type Principal,
  type RequestError,
  type RequestPatch,
  type RequestRecord,
  type SessionRecord,
  TERMINAL_REQUEST_STATUSES,
  type WebhookBinding,
} from "@flowrt/core";
import { jsonRefusal, storedJson } from "../execution/blocks/json-data.js";
import { isoNow } from "./clock.js";
import { newId } from "./new-id.js";
import { RunAbort, writeAfterAbort, writeAfterEnd } from "./run-abort.js";
import type { HostLogger } from "../logger.js";
import type { FlowRegistry, RegisteredFlow } from "../flows/registry.js";

/** What a request runs: an action, or a webhook binding. */
export type RequestTarget =
  | { type: "action"; action: ActionDefinition }
  | { type: "webhook"; binding: WebhookBinding };

export interface NewRequest {
  flow: RegisteredFlow;
  session: SessionRecord;
  principal: Principal;
  target: RequestTarget;
  input: unknown;
  /**
   * The input is already a JSON value (fresh from `JSON.parse`, nothing else holds it): stored as is,
   * without the JSON round trip that turns any other value into JSON.
   */
  inputIsJson?: boolean;
  /**
   * The block's input as its own `inputSchema` already parsed it (a webhook validates before dispatch):
   * a run started here hands it to the block, which then skips that parse. `input` is still what is stored.
   */
  parsedBlockInput?: { value: unknown };
  metadata?: JsonObject;
}

/** One claimed request as the executor sees it. */
export interface ClaimedRun {
  readonly id: string;
  readonly flow: RegisteredFlow;
  readonly session: SessionRecord;
  readonly block: AnyBlock;
  readonly policy: ActionDefinition | WebhookBinding;
  /** The run's abort switch: `abort.aborted` is free, `abort.signal` is made on first read. */
  readonly abort: RunAbort;
  /**
   * Appends an event to the request's log; once the run is aborted, refused (`request-aborted`) with
   * nothing appended: the terminal event is the log's last.
   */
  emit(type: string, data: JsonObject): Promise<unknown>;
}

/** A run made ready by {@link RequestExecutor}: `execute` runs its block tree and settles with the output. */
export interface PreparedRun {
  execute(): Promise<unknown>;
}

/**
 * Prepares one claimed request (its context and resources); the runner then awaits `execute()`. Supplied
 * by the host, which owns contexts and blocks. `record` is the request as claimed and `parsedBlockInput`
 * the block's input already parsed before dispatch ({@link NewRequest.parsedBlockInput}): both are handed
 * over here and not kept by the run, so a run waiting on its block holds neither apart from what the
 * executor keeps. Two steps, so that while the block runs the runner awaits the block's own promise,
 * with no promise of the executor's chained in between.
 */
export type RequestExecutor = (
  run: ClaimedRun,
  record: RequestRecord,
  parsedBlockInput: { value: unknown } | undefined,
) => Promise<PreparedRun>;

export interface RequestRunnerOptions {
  stores: FlowStores;
  registry: FlowRegistry;
  logger: HostLogger;
  execute: RequestExecutor;
  /** Identifies this host in request claims. */
  hostId: string;
  /** How long a claim on a running request holds without renewal. @default 30_000 */
  leaseMs?: number;
}

/** Webhook labels, made once per binding: a label built per request would be a fresh cons string each time. */
const webhookLabels = new WeakMap<WebhookBinding, string>();

export function actionLabel(target: RequestTarget): string {
  if (target.type === "action") return target.action.name;
  const { binding } = target;
  let label = webhookLabels.get(binding);
  if (label === undefined) {
    label = `webhook:${binding.provider}:${binding.eventType}`;
    webhookLabels.set(binding, label);
  }
  return label;
}

/**
 * Why a store refused to create `record`, when the cause is its input: a JSON value handed over as is
 * ({@link NewRequest.inputIsJson}) may still be nested too deeply for the store's serializer. Asked only
 * after a refusal, so a stored request pays nothing for it; a store's own failure is not reclassified.
 */
function inputRefusal(record: RequestRecord): FlowError | undefined {
  return jsonRefusal(record.input, "input");
}

/** The error of a non-durable request whose host stopped: on the record and on its `request.failed` event. */
const ORPHANED: RequestError = Object.freeze({
  code: "internal-error",
  message: "The host running this request stopped.",
  retryable: false,
});

function toRequestError(error: unknown): RequestError {
  if (isFlowError(error)) return { code: error.code, message: error.message, retryable: error.retryable };
  // Application errors keep their message on the record (its owner reads it); stacks never leave the host.
  const message = error instanceof Error ? error.message : String(error);
  return { code: "internal-error", message, retryable: false };
}

/**
 * Requests: their records (`queued → running → completed | failed | aborted`, every transition a
 * compare-and-swap on the record's version), their event logs, the active registry, abort and the
 * durable queue. A request is persisted before it is acknowledged; a host claims it with a lease before
 * running it, so when several hosts share a store exactly one runs it, and a claim left by a host that
 * died expires and is taken over.
 */
export class RequestRunner {
  /** {@link targetOf}'s answers: flows are immutable once registered. */
  private readonly targets = new WeakMap<RegisteredFlow, Map<string, RunTarget>>();
  /** Runs claimed here, by request id. */
  private readonly runs = new Map<string, ActiveRun>();
  /** Runs launched here and not yet settled (claimed or not), and who waits for them to drain. */
  private launched = 0;
  private idle: { promise: Promise<void>; resolve: () => void } | undefined;
  private readonly leaseMs: number;
  /** How often a held claim is renewed. */
  private readonly renewEveryMs: number;
  /** Claims held by requests running here; one timer renews the due ones (no timer per request). */
  private readonly leases = new Set<Lease>();
  private renewTimer: NodeJS.Timeout | undefined;
  /** No new submissions from here on ({@link close} has begun). */
  private closing = false;
  /** Submissions persisting now, and who waits for the last of them ({@link close}). */
  private submitting = 0;
  private submitted: (() => void) | undefined;
  /** Nothing more is launched (submissions under way have been launched). */
  private closed = false;

  /** Whether other processes share the store (and may abort a run of this one): see {@link ActiveRun.emit}. */
  readonly crossProcess: boolean;

  constructor(private readonly options: RequestRunnerOptions) {
    this.crossProcess = options.stores.crossProcess === true;
    this.leaseMs = options.leaseMs ?? 30_000;
    this.renewEveryMs = Math.max(50, Math.floor(this.leaseMs / 3));
  }

  /**
   * Persists a queued request and starts it in the background. Returns once it is persisted. Refused once
   * {@link close} has begun; one already under way is persisted and launched before `close` goes on, so a
   * request that was accepted always runs (or, durable, is left queued for a host to recover).
   */
  async submit(request: NewRequest): Promise<RequestRecord> {
    if (this.closing)
      throw new FlowError("host-not-started", "This host is closed; the request was not accepted.");
    this.submitting++;
    try {
      const record = await this.persist(request, "queued");
      this.launch(record, request.session, request.parsedBlockInput);
      return record;
    } finally {
      if (--this.submitting === 0) this.submitted?.();
    }
  }

  /** Persists a request that failed before it could run (e.g. a webhook input that did not validate). */
  async persistFailed(request: NewRequest, error: unknown): Promise<RequestRecord> {
    const record = await this.persist(request, "failed", toRequestError(error));
    await this.emit(record.id, "request.failed", { error: record.error as unknown as JsonObject });
    return record;
  }

  private async persist(request: NewRequest, status: "queued" | "failed", error?: RequestError) {
    const policy = request.target.type === "action" ? request.target.action : request.target.binding;
    const now = isoNow();
    const record: RequestRecord = {
      id: newId(),
      sessionId: request.session.id,
      flowId: request.flow.id,
      flowKind: request.flow.kind,
      action: actionLabel(request.target),
      userId: request.principal.userId,
      status,
      input: request.inputIsJson === true ? (request.input as JsonValue) : storedJson(request.input, "input"),
      metadata: request.metadata ? { ...request.metadata } : {},
      durable: policy.durable,
      version: 1,
      createdAt: now,
    };
    if (request.principal.orgId) record.orgId = request.principal.orgId;
    if (error) {
      record.error = error;
      record.completedAt = now;
    }
    try {
      await this.options.stores.requests.create(record);
    } catch (error) {
      throw (request.inputIsJson === true ? inputRefusal(record) : undefined) ?? error;
    }
    return record;
  }

  /**
   * Starts running a persisted record in the background; errors land on the record. `session` is the
   * record's session when the caller holds it (it was just created or read), saving a read.
   */
  launch(record: RequestRecord, session?: SessionRecord, parsedBlockInput?: { value: unknown }): void {
    if (this.closed) return;
    this.launched++;
    // The claim in a step of its own: the record as submitted is not held while the run goes on.
    this.claim(record).then(
      (claimed) => {
        if (claimed === null) this.settled();
        else {
          const lease = new ActiveRun(this, claimed, Date.now() + this.renewEveryMs, parsedBlockInput);
          void this.run(lease, session);
        }
      },
      (error: unknown) => {
        this.runnerFailed(record.id, error);
        this.settled();
      },
    );
  }

  private runnerFailed(requestId: string, error: unknown): void {
    this.options.logger.error("request runner failed", {
      requestId,
      error: error instanceof Error ? error.message : String(error),
    });
  }

  /** One launched run has settled: {@link close} may be waiting for the last. */
  private settled(): void {
    if (--this.launched === 0 && this.idle !== undefined) {
      const idle = this.idle;
      this.idle = undefined;
      idle.resolve();
    }
  }

  /** Appends an event (the store's answer, the stored event, is of no use here and not waited for apart). */
  emit(requestId: string, type: string, data: JsonObject): Promise<unknown> {
    return this.options.stores.requests.appendEvent({
      requestId,
      type,
      at: isoNow(),
      // The store copies what it keeps (as JSON), so the data goes in as given.
      data,
    });
  }

  private async claim(record: RequestRecord): Promise<RequestRecord | null> {
    const now = Date.now();
    const claimable =
      record.status === "queued" || (record.status === "running" && (record.claim?.until ?? 0) < now);
    if (!claimable) return null;
    const patch: RequestPatch = {
      status: "running",
      claim: { hostId: this.options.hostId, until: now + this.leaseMs },
      startedAt: record.startedAt ?? isoNow(),
    };
    const result = await this.options.stores.requests.update(record.id, record.version, patch);
    if (!result.ok) return null;
    // The record as claimed, copied with `Object.assign` onto a fresh object, then assigned: a spread followed
    // by more members gives every copy a map of its own (memory and time per run); this keeps one shape.
    const claimed: RequestRecord = Object.assign({}, record);
    claimed.status = "running";
    claimed.startedAt = patch.startedAt;
    claimed.claim = patch.claim ?? undefined;
    claimed.version = result.version;
    return claimed;
  }

  /** The block and policy a stored action label names, looked up once per flow and label. */
  private targetOf(flow: RegisteredFlow, action: string): RunTarget {
    let targets = this.targets.get(flow);
    if (targets === undefined) this.targets.set(flow, (targets = new Map()));
    let target = targets.get(action);
    if (target === undefined) {
      target = this.findTarget(flow, action);
      targets.set(action, target);
    }
    return target;
  }

  private findTarget(flow: RegisteredFlow, action: string): RunTarget {
    if (action.startsWith("webhook:")) {
      const [, provider = "", ...rest] = action.split(":");
      const { webhooks } = flow.definition;
      const on = Object.hasOwn(webhooks, provider) ? webhooks[provider]!.on : undefined;
      const eventType = rest.join(":");
      const binding = on !== undefined && Object.hasOwn(on, eventType) ? on[eventType] : undefined;
      if (binding) return { block: binding.block, policy: binding };
    } else {
      const definition = flow.definition.actions[action];
      if (definition) return { block: definition.block, policy: definition };
    }
    throw new FlowError("action-not-found", `Flow "${flow.id}" no longer has "${action}".`);
  }

  /**
   * Runs one claimed record to its end; never rejects (a failure of the runner itself is logged).
   * Counted out of {@link launched} when it settles, which is what {@link close} waits for.
   */
  private async run(lease: ActiveRun, known: SessionRecord | undefined): Promise<void> {
    let cleared = false;
    const { id } = lease;
    try {
      this.runs.set(id, lease);
      this.holdLease(lease);
      try {
        await this.start(lease, known);
        let outcome: { ok: true; output: unknown } | { ok: false; error: unknown };
        try {
          const prepared = await this.prepare(lease);
          const output = await prepared.execute();
          outcome = { ok: true, output };
        } catch (error) {
          outcome = { ok: false, error };
        }
        cleared = await this.finish(lease, outcome, lease.abort.aborted);
      } catch (error) {
        cleared = await this.finish(lease, { ok: false, error }, false);
      }
    } catch (error) {
      this.runnerFailed(id, error);
    } finally {
      this.releaseLease(lease);
      this.runs.delete(id);
      if (!cleared) await this.options.stores.requests.clearActive(id).catch(() => {});
      this.settled();
    }
  }

  /** Hands the claimed record over to the executor: from here on the run holds only its id and version. */
  private prepare(lease: ActiveRun): Promise<PreparedRun> {
    const { claimed, parsedBlockInput } = lease;
    if (claimed === undefined) throw new Error(`Request "${lease.id}" was already prepared.`);
    lease.claimed = undefined;
    lease.parsedBlockInput = undefined;
    return this.options.execute(lease, claimed, parsedBlockInput);
  }

  /**
   * Finds the run's session (`known` when the submitter held it: it was just created or read) and target,
   * enters the active registry and emits `request.started`. A frame of its own, so that what it builds is
   * not held while the block runs.
   */
  private async start(lease: ActiveRun, known: SessionRecord | undefined): Promise<void> {
    const { stores, registry } = this.options;
    const record = lease.claimed;
    if (record === undefined) throw new Error(`Request "${lease.id}" was already prepared.`);
    const session =
      known !== undefined && known.id === record.sessionId
        ? known
        : await stores.sessions.get(record.sessionId);
    if (!session) throw new FlowError("session-not-found", `Session "${record.sessionId}" no longer exists.`);
    const flow = registry.get(record.flowId);
    const { block, policy } = this.targetOf(flow, record.action);
    const entry: ActiveRequestEntry = {
      requestId: record.id,
      sessionId: record.sessionId,
      flowId: record.flowId,
      userId: record.userId,
      action: record.action,
      startedAt: record.startedAt ?? isoNow(),
    };
    if (record.orgId) entry.orgId = record.orgId;
    await stores.requests.markActive(entry);
    // Aborted while it was being claimed or started: `request.aborted` is already written, nothing may follow.
    if (lease.abort.aborted) throw writeAfterAbort("event", "request.started");
    const started: JsonObject = { action: record.action, sessionId: record.sessionId };
    if (record.metadata.webhook) started.webhook = record.metadata.webhook;
    await this.emit(record.id, "request.started", started);
    lease.flow = flow;
    lease.session = session;
    lease.block = block;
    lease.policy = policy;
  }

  private holdLease(lease: Lease): void {
    this.leases.add(lease);
    if (this.renewTimer === undefined) {
      // Half the renewal period: a claim is renewed at most 1.5 periods (half the lease) after the last write.
      this.renewTimer = setInterval(() => this.renewDueLeases(), Math.max(10, this.renewEveryMs >> 1));
      this.renewTimer.unref?.();
    }
  }

  /** The timer stays until a tick finds no claim held (or the runner closes): runs in quick succession share one. */
  private releaseLease(lease: Lease): void {
    this.leases.delete(lease);
  }

  private stopRenewing(): void {
    if (this.renewTimer === undefined) return;
    clearInterval(this.renewTimer);
    this.renewTimer = undefined;
  }

  private renewDueLeases(): void {
    if (this.leases.size === 0) {
      this.stopRenewing();
      return;
    }
    const now = Date.now();
    for (const lease of this.leases) {
      if (lease.due > now) continue;
      lease.due = now + this.renewEveryMs;
      void this.renewLease(lease).catch(() => {});
    }
  }

  private async renewLease(lease: Lease): Promise<void> {
    const { hostId } = this.options;
    const until = Date.now() + this.leaseMs;
    const result = await this.options.stores.requests.update(lease.id, lease.version, {
      claim: { hostId, until },
    });
    if (result.ok) lease.version = result.version;
    else lease.abort.abort(); // aborted, or taken over after our lease lapsed: stop working on it
  }

  /**
   * Writes the terminal status unless someone else (an abort) already did; then the terminal event.
   * Returns whether the request left the active registry.
   */
  private async finish(
    lease: Lease,
    outcome: { ok: true; output: unknown } | { ok: false; error: unknown },
    aborted: boolean,
  ): Promise<boolean> {
    const { stores } = this.options;
    const { id } = lease;
    // The block tree and its hooks are done: a context kept past them can no longer write or emit.
    lease.abort.end();
    // Leave the active registry before the terminal event, so whoever sees the end sees it gone.
    let cleared = true;
    try {
      await stores.requests.clearActive(id);
    } catch {
      cleared = false;
    }
    const completedAt = isoNow();
    let output: JsonValue = null;
    if (outcome.ok) {
      try {
        output = storedJson(outcome.output, "output");
      } catch (error) {
        outcome = { ok: false, error }; // an output JSON cannot hold fails the request (`invalid-output`)
      }
    }
    const wasAbort = aborted || (!outcome.ok && hasErrorCode(outcome.error, "request-aborted"));
    const patch: RequestPatch = outcome.ok
      ? { status: "completed", output, completedAt, claim: null }
      : wasAbort
        ? { status: "aborted", error: toRequestError(outcome.error), completedAt, claim: null }
        : { status: "failed", error: toRequestError(outcome.error), completedAt, claim: null };
    // First against the version of our own last write (claim or renewal): if it still holds, nobody
    // (an abort, another host) wrote since, so the record is ours and running. Else re-read and decide.
    let expected: number | null = lease.version;
    for (let attempt = 0; attempt < 10; attempt++) {
      if (expected === null) {
        const current = await stores.requests.get(id);
        if (!current || TERMINAL_REQUEST_STATUSES.includes(current.status)) return cleared;
        if (current.claim && current.claim.hostId !== this.options.hostId) return cleared; // taken over
        expected = current.version;
      }
      const result = await stores.requests.update(id, expected, patch);
      expected = null;
      if (!result.ok) continue;
      if (patch.status === "completed")
        await this.emit(id, "request.completed", { output: patch.output ?? null });
      else if (patch.status === "aborted") await this.emit(id, "request.aborted", {});
      else await this.emit(id, "request.failed", { error: patch.error as unknown as JsonObject });
      return cleared;
    }
    return cleared;
  }

  /** Aborts a queued or running request on any host; 409 `request-finished` once it has ended. */
  async abort(requestId: string): Promise<RequestRecord> {
    const { stores } = this.options;
    for (;;) {
      const current = await stores.requests.get(requestId);
      if (!current) throw new FlowError("request-not-found", `No request "${requestId}" exists.`);
      if (TERMINAL_REQUEST_STATUSES.includes(current.status)) {
        throw new FlowError("request-finished", `Request "${requestId}" has already ${current.status}.`);
      }
      const completedAt = isoNow();
      const error: RequestError = { code: "request-aborted", message: "The request was aborted." };
      const result = await stores.requests.update(requestId, current.version, {
        status: "aborted",
        error,
        completedAt,
        claim: null,
      });
      if (!result.ok) continue;
      const local = this.runs.get(requestId);
      local?.abort.abort();
      // A run here leaves the active registry in its own finish. One on another host, or on none (its host
      // died), may have nobody left to: cleared here, before the terminal event, as a finish would.
      if (local === undefined) await stores.requests.clearActive(requestId);
      await this.emit(requestId, "request.aborted", {});
      return { ...current, status: "aborted", error, completedAt, claim: undefined, version: result.version };
    }
  }

  /**
   * Claims and runs durable requests left queued, or running under a lapsed claim (a host that died).
   * Non-durable requests orphaned the same way are marked failed: nobody promised to finish them.
   */
  async recover(): Promise<number> {
    const { stores } = this.options;
    const candidates = await stores.requests.listByStatus(["queued", "running"]);
    let launched = 0;
    const now = Date.now();
    for (const record of candidates) {
      if (this.runs.has(record.id)) continue;
      const lapsed = record.status === "queued" ? true : (record.claim?.until ?? 0) < now;
      if (!lapsed) continue;
      if (record.durable) {
        this.launch(record);
        launched++;
      } else if (record.status === "running" || now - Date.parse(record.createdAt) > this.leaseMs) {
        await stores.requests
          .update(record.id, record.version, {
            status: "failed",
            error: ORPHANED,
            completedAt: isoNow(),
            claim: null,
          })
          .then(async (r) => {
            if (!r.ok) return;
            // The dead host never left the active registry: leave it for it, before the terminal event.
            await stores.requests.clearActive(record.id);
            await this.emit(record.id, "request.failed", { error: ORPHANED as unknown as JsonObject });
          });
      }
    }
    return launched;
  }

  isRunningHere(requestId: string): boolean {
    return this.runs.has(requestId);
  }

  /** Stops taking work, lets submissions under way launch, and waits for what runs here to finish. */
  async close(): Promise<void> {
    this.closing = true;
    while (this.submitting > 0) {
      await new Promise<void>((resolve) => {
        this.submitted = resolve;
      });
    }
    this.submitted = undefined;
    this.closed = true;
    while (this.launched > 0) {
      if (this.idle === undefined) {
        let resolve!: () => void;
        const promise = new Promise<void>((done) => {
          resolve = done;
        });
        this.idle = { promise, resolve };
      }
      await this.idle.promise;
    }
    this.stopRenewing();
  }
}

/** What a request runs: its block, under its action's (or webhook binding's) policy. */
interface RunTarget {
  block: AnyBlock;
  policy: ActionDefinition | WebhookBinding;
}

/**
 * A request running here: the claim it holds (the record's id and version as of our last write, claim or
 * renewal), its abort switch, and what the executor gets (one object per run, no closures). The record as
 * claimed is kept only until the executor takes it ({@link RequestRunner.prepare}): a run waiting on its
 * block does not hold the stored input, metadata and claim a second time.
 */
class ActiveRun implements ClaimedRun {
  readonly abort = new RunAbort();
  readonly id: string;
  /** The record's version as of our last write. */
  version: number;
  /** The record as claimed, until the executor takes it. */
  claimed: RequestRecord | undefined;
  // Set once the target is known, before the executor sees the run.
  flow!: RegisteredFlow;
  session!: SessionRecord;
  block!: AnyBlock;
  policy!: ActionDefinition | WebhookBinding;

  constructor(
    private readonly runner: RequestRunner,
    claimed: RequestRecord,
    /** When the claim is next renewed (ms since epoch). */
    public due: number,
    /** The block's input parsed before dispatch, until the executor takes it. */
    public parsedBlockInput: { value: unknown } | undefined,
  ) {
    this.id = claimed.id;
    this.version = claimed.version;
    this.claimed = claimed;
  }

  emit(type: string, data: JsonObject): Promise<unknown> {
    // Aborted (here, by the abort route, or by a claim that lapsed): the terminal event is written or on its
    // way, and nothing of the run may follow it.
    if (this.abort.aborted) return Promise.reject(writeAfterAbort("event", type));
    if (this.abort.ended) return Promise.reject(writeAfterEnd("event", type));
    const appended = this.runner.emit(this.id, type, data);
    return this.runner.crossProcess
      ? appended.catch((error: unknown) => this.endedElsewhere(error, type))
      : appended;
  }

  /**
   * A store shared across processes refuses the run's events once the request's stored status is terminal
   * (`request-finished`): another host aborted it. The run stops here as after a local abort, so its later
   * writes through `ctx` are refused too, well before the next claim renewal would have noticed.
   */
  private endedElsewhere(error: unknown, type: string): never {
    if (!hasErrorCode(error, "request-finished")) throw error;
    this.abort.abort();
    throw writeAfterAbort("event", type);
  }
}

type Lease = ActiveRun;
