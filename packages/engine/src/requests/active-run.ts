import {
  type ActionDefinition,
  type AnyBlock,
  type Fence,
  type FlowError,
  hasErrorCode,
  type JsonObject,
  type NewRequestEvent,
  type RequestRecord,
  type ScheduleDefinition,
  type SessionRecord,
  type WebhookBinding,
} from "@flowrt/core";
import type { RegisteredFlow } from "../flows/registry.js";
import type { HostLogger } from "../logger.js";
import { RunAbort, writeAfterAbort, writeAfterEnd } from "./run-abort.js";
import { RunEvents } from "./run-events.js";

/** What a claimed request runs: its block, under its action's (or webhook binding's) policy. */
export interface RunTarget {
  readonly block: AnyBlock;
  readonly policy: ActionDefinition | WebhookBinding | ScheduleDefinition;
}

/** One claimed request as the executor sees it: started, with its flow, session and target known. */
export interface ClaimedRun extends RunTarget {
  readonly id: string;
  readonly flow: RegisteredFlow;
  readonly session: SessionRecord;
  /** The run's abort switch: `abort.aborted` is free, `abort.signal` is made on first read. */
  readonly abort: RunAbort;
  /**
   * Appends an event to the request's log; once the run is aborted, refused (`request-aborted`) with nothing
   * appended: the terminal event is the log's last.
   */
  emit(type: string, data: JsonObject): Promise<unknown>;
  /** The fence of a durable run's writes (see `Fence` in `@flowrt/core`); `undefined` for a non-durable run. */
  readonly fence: Fence | undefined;
  /** The logger of the run's lines, unbound (the run binds its request id): the submitter's, else the host's. */
  readonly log?: HostLogger;
  /** Throws (and stops the run) when the claim was not renewed for a whole lease: see {@link RunClaim.checkLease}. */
  checkLease(what: string, name: string): void;
  /** Stops the run whose claim was lost; the refusal to throw (see {@link RunClaim.loseLease}). */
  loseLease(reason: string, what: string, name: string): FlowError;
}

/** What a claim needs of its runner: its append, and whether other processes share the store (and may abort a run). */
export interface ClaimAppender {
  readonly crossProcess: boolean;
  /** How long a claim holds without renewal. */
  readonly leaseMs: number;
  append(event: NewRequestEvent, fence?: Fence): Promise<unknown>;
  /** Logs that a run stopped because its claim was lost (`lease-lost`), once per run. */
  logLeaseLost(requestId: string, epoch: number, reason: string): void;
}

/**
 * A request claimed by this host, from its claim to its end: the claim it holds (the record's id and version as of
 * our last write, claim or renewal), when it is next renewed, and its abort switch. The record as claimed is kept
 * only until the executor takes it: a run waiting on its block does not hold the stored input, metadata and claim
 * a second time.
 */
export class RunClaim {
  readonly abort = new RunAbort();
  readonly id: string;
  /** The record's version as of our last write. */
  version: number;
  /** The record as claimed, until the executor takes it. */
  claimed: RequestRecord | undefined;
  /**
   * What the run's writes carry when the request is durable (a take-over may re-run it elsewhere): the request and
   * this claim's epoch. A non-durable run is never taken over, and its writes carry none.
   */
  readonly fence: Fence | undefined;
  /** When the claim was last made or renewed (ms since epoch): past the lease, the run stops before it writes. */
  renewedAt = Date.now();
  /** Whether the run stopped because its claim was lost: the request, and its active entry, are another host's. */
  leaseLost = false;
  /**
   * Whether a closing host left the run past its grace period ({@link leave}): the request was handed on (a durable
   * one's claim released for recovery, a non-durable one failed `host-lost`), so the run writes nothing more.
   */
  left = false;

  /** Whether the request is no longer this run's to finish: its claim was lost, or a closing host left it. */
  get handedOver(): boolean {
    return this.leaseLost || this.left;
  }

  /** A closing host leaves the run: it stops as after an abort (its later writes are refused) and writes no end. */
  leave(): void {
    this.left = true;
    this.abort.abort();
  }

  /** What the run's log lines and its failure's line name: the flow, the action and the principal. */
  readonly about: {
    readonly flowId: string;
    readonly action: string;
    readonly userId: string;
    readonly sessionId: string;
  };

  constructor(
    private readonly appender: ClaimAppender,
    claimed: RequestRecord,
    /** When the claim is next renewed (ms since epoch). */
    public due: number,
    /** The block's input parsed before dispatch, until the executor takes it. */
    public parsedBlockInput: { value: unknown } | undefined,
    /** The logger the run's lines go to: the submitting HTTP request's (bound to its id), else the host's. */
    readonly log: HostLogger,
  ) {
    this.about = {
      flowId: claimed.flowId,
      action: claimed.action,
      userId: claimed.userId,
      sessionId: claimed.sessionId,
    };
    this.id = claimed.id;
    this.version = claimed.version;
    this.claimed = claimed;
    this.fence = claimed.durable ? { requestId: claimed.id, epoch: claimed.epoch ?? 0 } : undefined;
    this.events = new RunEvents(
      claimed.id,
      (event) => this.appendOne(event),
      (error) => hasErrorCode(error, "request-aborted"),
      () => !this.abort.aborted && !this.handedOver,
    );
  }

  /** The run's event writes (its blocks' start and end deferred onto its end: see {@link RunEvents}). */
  readonly events: RunEvents;

  /**
   * Before a fenced write: a claim not renewed for a whole lease may already be another host's (this process was
   * paused, or its renewals failed), so the run stops instead of writing. The `request-aborted` refusal to throw.
   */
  checkLease(what: string, name: string): void {
    if (this.fence === undefined || this.leaseLost) return;
    const since = Date.now() - this.renewedAt;
    if (since > this.appender.leaseMs)
      throw this.loseLease(
        `its claim was last renewed ${since} ms ago, past the ${this.appender.leaseMs} ms lease`,
        what,
        name,
      );
  }

  /**
   * The claim is lost (the store refused a fenced write, or the lease ran out): the run stops as after an abort, its
   * later writes are refused, and nothing of it reaches the log. The `request-aborted` refusal of the write.
   */
  loseLease(reason: string, what: string, name: string): FlowError {
    if (!this.leaseLost) {
      this.leaseLost = true;
      this.appender.logLeaseLost(this.id, this.fence?.epoch ?? 0, reason);
    }
    this.abort.abort();
    return writeAfterAbort(what, name);
  }

  emit(type: string, data: JsonObject): Promise<unknown> {
    // Aborted (here, by the abort route, or by a claim that lapsed): the terminal event is written or on its way,
    // and nothing of the run may follow it.
    if (this.abort.aborted) return Promise.reject(writeAfterAbort("event", type));
    if (this.abort.ended) return Promise.reject(writeAfterEnd("event", type));
    if (this.fence !== undefined) {
      try {
        this.checkLease("event", type);
      } catch (error) {
        return Promise.reject(error);
      }
    }
    return this.events.emit(type, data);
  }

  /** One event written: fenced when the run is durable; a refusal by a store shared across processes stops the run. */
  private appendOne(event: NewRequestEvent): Promise<unknown> {
    if (this.fence !== undefined) {
      return this.appender
        .append(event, this.fence)
        .catch((error: unknown) => this.endedElsewhere(error, event.type));
    }
    const appended = this.appender.append(event);
    return this.appender.crossProcess
      ? appended.catch((error: unknown) => this.endedElsewhere(error, event.type))
      : appended;
  }

  /**
   * A store shared across processes refuses the run's events once the request's stored status is terminal
   * (`request-finished`): another host aborted it. The run stops here as after a local abort, so its later writes
   * through `ctx` are refused too, well before the next claim renewal would have noticed.
   */
  private endedElsewhere(error: unknown, type: string): never {
    if (hasErrorCode(error, "lease-lost")) throw this.loseLease(error.message, "event", type);
    if (!hasErrorCode(error, "request-finished")) throw error;
    this.abort.abort();
    throw writeAfterAbort("event", type);
  }
}

/** A claim whose run has started: what the executor gets. */
export class StartedRun implements ClaimedRun {
  readonly id: string;
  readonly fence: Fence | undefined;
  readonly abort: RunAbort;
  readonly block: AnyBlock;
  readonly policy: ActionDefinition | WebhookBinding | ScheduleDefinition;

  constructor(
    private readonly claim: RunClaim,
    readonly flow: RegisteredFlow,
    readonly session: SessionRecord,
    target: RunTarget,
  ) {
    this.id = claim.id;
    this.fence = claim.fence;
    this.abort = claim.abort;
    this.block = target.block;
    this.policy = target.policy;
  }

  emit(type: string, data: JsonObject): Promise<unknown> {
    return this.claim.emit(type, data);
  }

  get log(): HostLogger {
    return this.claim.log;
  }

  checkLease(what: string, name: string): void {
    this.claim.checkLease(what, name);
  }

  loseLease(reason: string, what: string, name: string): FlowError {
    return this.claim.loseLease(reason, what, name);
  }
}
