import {
  type Fence,
  FlowError,
  type FlowStores,
  hasErrorCode,
  type JsonValue,
  type NewRequestEvent,
  type RequestError,
  type RequestRecord,
  type SessionRecord,
} from "@flowrt/core";
import { storedJson } from "../execution/blocks/json-data.js";
import type { FlowRegistry, RegisteredFlow } from "../flows/registry.js";
import type { HostLogger } from "../logger.js";
import { traceActionRun } from "../telemetry/run-span.js";
import { type ClaimedRun, RunClaim, type RunTarget, StartedRun } from "./active-run.js";
import { handOn } from "./hand-on.js";
import { LeaseKeeper } from "./lease.js";
import { RequestLifecycle, type TerminalPatch } from "./lifecycle.js";
import { logRequestFailure } from "./log-request-failure.js";
import { inputRefusal, type NewRequest, requestRecord, toRequestError } from "./new-request.js";
import { recoverRequests } from "./recovery.js";
import { writeAfterAbort } from "./run-abort.js";
import { targetOf } from "./run-target.js";
import { RunnerGate } from "./runner-gate.js";
import { stopRequest } from "./stop-request.js";

/** A run made ready by {@link RequestExecutor}: `execute` runs its block tree and settles with the output. */
export interface PreparedRun {
  execute(): Promise<unknown>;
}

/**
 * Prepares one claimed request (its context and resources); the runner then awaits `execute()`. Supplied by the
 * host, which owns contexts and blocks. `record` is the request as claimed and `parsedBlockInput` the block's input
 * already parsed before dispatch ({@link NewRequest.parsedBlockInput}): both are handed over here and not kept by
 * the run, so a run waiting on its block holds neither apart from what the executor keeps. Two steps, so that
 * while the block runs the runner awaits the block's own promise, with no promise of the executor's chained in
 * between.
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
  /** Keep an internal error's message on the record (the host's `exposeErrors`, for development). @default false */
  exposeErrors?: boolean;
}

type Outcome = { ok: true; output: unknown } | { ok: false; error: unknown };

/**
 * Runs requests: a request is persisted before it is acknowledged; a host claims it with a lease before running
 * it, so when several hosts share a store exactly one runs it, and a claim left by a host that died expires and
 * is taken over. Status changes go through the {@link RequestLifecycle}; claims are renewed by the
 * {@link LeaseKeeper}; this keeps what runs here and drains it on close.
 */
export class RequestRunner {
  /** Runs claimed here, by request id. */
  private readonly runs = new Map<string, RunClaim>();
  /**
   * How many runs of each request are launched here and not yet settled, and who waits for them ({@link whenSettled});
   * `aborted`: an abort landed meanwhile, so a run whose claim (which starts it) was being written stops before its block.
   */
  private readonly launches = new Map<string, { count: number; waiters: (() => void)[]; aborted: boolean }>();
  /** How long a claim holds without renewal. */
  readonly leaseMs: number;
  readonly lifecycle: RequestLifecycle;
  private readonly leases: LeaseKeeper;
  /** What is still admitted and launched, and the close that drains it. */
  private readonly gate = new RunnerGate();

  /** Whether other processes share the store (and may abort a run of this one): see {@link RunClaim.emit}. */
  readonly crossProcess: boolean;

  constructor(private readonly options: RequestRunnerOptions) {
    this.crossProcess = options.stores.crossProcess === true;
    this.leaseMs = options.leaseMs ?? 30_000;
    this.lifecycle = new RequestLifecycle(options.stores, options.hostId, this.leaseMs);
    this.leases = new LeaseKeeper(this.lifecycle, this.leaseMs);
  }

  /**
   * Persists a queued request and starts it in the background. Returns once it is persisted. Refused once
   * {@link close} has begun; one already under way is persisted and launched before `close` goes on, so a request
   * that was accepted always runs (or, durable, is left queued for a host to recover).
   */
  async submit(request: NewRequest): Promise<RequestRecord> {
    const done = this.gate.admit();
    try {
      const record = await this.persist(request, "queued");
      this.launch(record, request.session, request.parsedBlockInput, request.log);
      return record;
    } finally {
      done();
    }
  }

  /** Persists a request that failed before it could run (e.g. a webhook input that did not validate). */
  async persistFailed(request: NewRequest, error: unknown): Promise<RequestRecord> {
    const stored = toRequestError(error, this.options.exposeErrors);
    const record = await this.persist(request, "failed", stored);
    logRequestFailure(request.log ?? this.options.logger, record, error, stored);
    await this.lifecycle.failedOnArrival(record);
    return record;
  }

  private async persist(request: NewRequest, status: "queued" | "failed", error?: RequestError) {
    const record = requestRecord(request, status, error);
    const { requests } = this.options.stores;
    let created: boolean;
    try {
      created = request.newSession
        ? await requests.create(record, { session: request.session })
        : await requests.create(record);
    } catch (failure) {
      throw inputRefusal(request, record) ?? failure;
    }
    // A fresh session's id (or the request's) was taken: two generated UUIDs met. Nothing was written.
    if (!created && request.newSession)
      throw new Error(`Request "${record.id}" or its session already exists.`);
    return record;
  }

  /**
   * Starts running a persisted record in the background; errors land on the record. `session` is the record's
   * session when the caller holds it (it was just created or read), saving a read.
   */
  launch(
    record: RequestRecord,
    session?: SessionRecord,
    parsedBlockInput?: { value: unknown },
    log?: HostLogger,
  ): void {
    if (!this.gate.launch()) return;
    const { id } = record;
    // Counted per request: a recovery pass may launch a request a submission launched too (one of them claims it).
    const launch = this.launches.get(id) ?? { count: 0, waiters: [], aborted: false };
    launch.count++;
    this.launches.set(id, launch);
    const ended = () => {
      if (--launch.count === 0) {
        this.launches.delete(id);
        for (const waiter of launch.waiters) waiter();
      }
      this.gate.settled();
    };
    // The claim in a step of its own: the record as submitted is not held while the run goes on.
    // Claimed and started in one write, unless the host is leaving: then it is only claimed, to be handed on.
    this.lifecycle.claim(record, !this.gate.leaving).then(
      (claimed) => {
        if (claimed === null) ended();
        // Claimed after the grace period ran out: handed on at once, never run here.
        else if (this.gate.leaving) void this.handOn(claimed).finally(ended);
        else {
          const due = Date.now() + this.leases.renewEveryMs;
          const claim = new RunClaim(this, claimed, due, parsedBlockInput, log ?? this.options.logger);
          // Aborted while its claim was being written: it started, and stops before its block.
          if (launch.aborted) claim.abort.abort();
          void this.run(claim, session, ended);
        }
      },
      (error: unknown) => {
        this.runnerFailed(id, error);
        ended();
      },
    );
  }

  /**
   * Settles once no run of `requestId` is launched here any more (being claimed, or running): at once when there is
   * none. What removes a request's records waits for this after aborting it, so that no run of it writes after.
   */
  whenSettled(requestId: string): Promise<void> {
    const launch = this.launches.get(requestId);
    if (launch === undefined) return Promise.resolve();
    return new Promise<void>((resolve) => launch.waiters.push(resolve));
  }

  /** A claim's append ({@link RunClaim}'s `appender`). */
  append(event: NewRequestEvent, fence?: Fence): Promise<unknown> {
    const { requests } = this.options.stores;
    return fence === undefined ? requests.appendEvent(event) : requests.appendEvent(event, fence);
  }

  /** A run stopped because its claim was lost: said once, as a warning naming the request and the epoch it held. */
  logLeaseLost(requestId: string, epoch: number, reason: string): void {
    this.options.logger.warn(
      { requestId, epoch, reason },
      "lease-lost: the run stopped and its writes are refused",
    );
  }

  private runnerFailed(requestId: string, error: unknown): void {
    this.options.logger.error({ requestId, err: error }, "request runner failed");
  }

  /**
   * Runs one claimed record to its end; never rejects (a failure of the runner itself is logged). `ended` counts its
   * launch out when it settles: {@link close} and {@link whenSettled} wait for that.
   */
  private async run(claim: RunClaim, known: SessionRecord | undefined, ended: () => void): Promise<void> {
    let cleared = false;
    const { id } = claim;
    try {
      this.runs.set(id, claim);
      this.leases.hold(claim);
      try {
        const started = await this.start(claim, known);
        let outcome: Outcome;
        try {
          const action = claim.claimed?.action ?? "";
          const output = await traceActionRun(started, action, async () =>
            (await this.prepare(claim, started)).execute(),
          );
          outcome = { ok: true, output };
        } catch (error) {
          outcome = { ok: false, error };
        }
        cleared = await this.finish(claim, outcome, claim.abort.aborted);
      } catch (error) {
        cleared = await this.finish(claim, { ok: false, error }, false);
      }
    } catch (error) {
      this.runnerFailed(id, error);
    } finally {
      this.leases.release(claim);
      this.runs.delete(id);
      // A lost claim's request is another host's now, and so is its active entry (a left one's is handed on too).
      if (!cleared && !claim.handedOver) await this.options.stores.requests.clearActive(id).catch(() => {});
      ended();
    }
  }

  /** Hands the claimed record over to the executor: from here on the run holds only its id and version. */
  private prepare(claim: RunClaim, started: StartedRun): Promise<PreparedRun> {
    const { claimed, parsedBlockInput } = claim;
    if (claimed === undefined) throw new Error(`Request "${claim.id}" was already prepared.`);
    claim.claimed = undefined;
    claim.parsedBlockInput = undefined;
    return this.options.execute(started, claimed, parsedBlockInput);
  }

  /**
   * Finds the run's session (`known` when the submitter held it: it was just created or read) and target, enters
   * the active registry and emits `request.started`. A frame of its own, so that what it builds is not held while
   * the block runs.
   */
  private async start(claim: RunClaim, known: SessionRecord | undefined): Promise<StartedRun> {
    const { stores, registry } = this.options;
    const record = claim.claimed;
    if (record === undefined) throw new Error(`Request "${claim.id}" was already prepared.`);
    const session =
      known !== undefined && known.id === record.sessionId
        ? known
        : await stores.sessions.get(record.sessionId);
    if (!session) throw new FlowError("session-not-found", `Session "${record.sessionId}" no longer exists.`);
    const flow: RegisteredFlow = registry.get(record.flowId);
    const target: RunTarget = targetOf(flow, record.action);
    // Aborted while its session was read: `request.aborted` is already written, the block does not run.
    if (claim.abort.aborted) throw writeAfterAbort("block", target.block.name);
    return new StartedRun(claim, flow, session, target);
  }

  /**
   * Leaves the active registry, then writes the terminal status through the lifecycle unless someone else (an
   * abort, another host) already did. Returns whether the request left the active registry.
   */
  private async finish(claim: RunClaim, outcome: Outcome, aborted: boolean): Promise<boolean> {
    // The block tree and its hooks are done: a context kept past them can no longer write or emit.
    claim.abort.end();
    // A lost claim: the request is another host's (its status, its active entry, its log). Nothing more is written.
    // The same for a run a closing host left: the request was handed on.
    if (claim.handedOver) return true;
    // The blocks' events not written yet go with the terminal write; a deferred write that failed fails the run.
    const events = await claim.events.takeDeferred();
    if (outcome.ok && claim.events.failure !== undefined)
      outcome = { ok: false, error: claim.events.failure };
    let output: JsonValue = null;
    if (outcome.ok) {
      try {
        output = storedJson(outcome.output, "output");
      } catch (error) {
        outcome = { ok: false, error }; // an output JSON cannot hold fails the request (`invalid-output`)
      }
    }
    const wasAbort = aborted || (!outcome.ok && hasErrorCode(outcome.error, "request-aborted"));
    let patch: TerminalPatch;
    if (outcome.ok) {
      patch = { status: "completed", output };
      // Ids only: the output may hold anything the block returned.
      claim.log.debug(
        { requestId: claim.id, flowId: claim.about.flowId, action: claim.about.action },
        "run completed",
      );
    } else {
      const error = toRequestError(outcome.error, this.options.exposeErrors);
      patch = { status: wasAbort ? "aborted" : "failed", error };
      if (!wasAbort) logRequestFailure(claim.log, { id: claim.id, ...claim.about }, outcome.error, error);
    }
    // The terminal write leaves the active registry with the status. When someone else ended the request first (an
    // abort, another host), it is left here, as before the end.
    if (await this.lifecycle.finish(claim.id, claim.version, patch, events)) return true;
    try {
      await this.options.stores.requests.clearActive(claim.id);
      return true;
    } catch {
      return false;
    }
  }

  /** Aborts a queued or running request on any host; 409 `request-finished` once it has ended. */
  abort(requestId: string): Promise<RequestRecord> {
    return this.abortWith(requestId, undefined);
  }

  /** {@link abort}, telling `tell` the record as it was before the abort (for {@link stopRequest}). */
  abortWith(requestId: string, tell: ((before: RequestRecord) => void) | undefined): Promise<RequestRecord> {
    return this.lifecycle.abort(requestId, async (before) => {
      tell?.(before);
      const local = this.runs.get(requestId);
      local?.abort.abort();
      const launch = this.launches.get(requestId);
      if (launch !== undefined) launch.aborted = true;
      // A run here leaves the active registry in its own finish. One on another host, or on none (its host died),
      // may have nobody left to: cleared here, before the terminal event, as a finish would.
      if (local === undefined) await this.options.stores.requests.clearActive(requestId);
    });
  }

  /** Aborts a request and settles once no run of it writes any more (see {@link stopRequest}). */
  stop(requestId: string): Promise<void> {
    return stopRequest(this, this.options.hostId, requestId);
  }

  /**
   * One recovery pass (see {@link recoverRequests}); `periodic`: a durable request queued less than a lease ago is
   * left to the host that accepted it.
   */
  recover(periodic = false): Promise<number> {
    return recoverRequests({
      stores: this.options.stores,
      lifecycle: this.lifecycle,
      leaseMs: this.leaseMs,
      queuedGraceMs: periodic ? this.leaseMs : 0,
      isRunningHere: (id) => this.runs.has(id),
      launch: (record) => this.launch(record),
    });
  }

  isRunningHere(requestId: string): boolean {
    return this.runs.has(requestId);
  }

  /**
   * Stops taking work, lets submissions under way launch, and waits for what runs here to finish: for at most
   * `graceMs` (default: as long as it takes). Past it, every run still here is left ({@link leaveRunning}) and
   * `close` returns without waiting for their blocks.
   */
  async close(options: { graceMs?: number } = {}): Promise<void> {
    try {
      await this.gate.close(options.graceMs, () => this.leaveRunning());
    } finally {
      this.leases.stop();
    }
  }

  /**
   * The grace period is over: every run still here is stopped (its signal fires, its later writes are refused) and
   * its request handed on ({@link handOn}). A request claimed from now on is handed on as soon as it is claimed.
   */
  private async leaveRunning(): Promise<void> {
    const left = [...this.runs.values()].filter((claim) => !claim.handedOver);
    for (const claim of left) {
      claim.leave();
      this.leases.release(claim);
    }
    await Promise.all(
      left.map((claim) =>
        this.handOn({ id: claim.id, durable: claim.fence !== undefined, epoch: claim.fence?.epoch ?? 0 }),
      ),
    );
  }

  private handOn(request: Pick<RequestRecord, "id" | "durable" | "epoch">): Promise<void> {
    const { stores, hostId, logger } = this.options;
    return handOn(
      {
        lifecycle: this.lifecycle,
        stores,
        hostId,
        logger,
        failed: (id, error) => this.runnerFailed(id, error),
      },
      request,
    );
  }
}
