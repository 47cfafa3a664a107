import {
  type ActionDefinition,
  type AnyBlock,
  hasErrorCode,
  type JsonObject,
  type RequestRecord,
  type SessionRecord,
  type WebhookBinding,
} from "@flowrt/core";
import type { RegisteredFlow } from "../flows/registry.js";
import { RunAbort, writeAfterAbort, writeAfterEnd } from "./run-abort.js";

/** What a claimed request runs: its block, under its action's (or webhook binding's) policy. */
export interface RunTarget {
  readonly block: AnyBlock;
  readonly policy: ActionDefinition | WebhookBinding;
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
}

/** How a claim appends: the runner's append, and whether other processes share the store (and may abort a run). */
export interface ClaimAppender {
  readonly crossProcess: boolean;
  append(requestId: string, type: string, data: JsonObject): Promise<unknown>;
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

  constructor(
    private readonly appender: ClaimAppender,
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
    // Aborted (here, by the abort route, or by a claim that lapsed): the terminal event is written or on its way,
    // and nothing of the run may follow it.
    if (this.abort.aborted) return Promise.reject(writeAfterAbort("event", type));
    if (this.abort.ended) return Promise.reject(writeAfterEnd("event", type));
    const appended = this.appender.append(this.id, type, data);
    return this.appender.crossProcess
      ? appended.catch((error: unknown) => this.endedElsewhere(error, type))
      : appended;
  }

  /**
   * A store shared across processes refuses the run's events once the request's stored status is terminal
   * (`request-finished`): another host aborted it. The run stops here as after a local abort, so its later writes
   * through `ctx` are refused too, well before the next claim renewal would have noticed.
   */
  private endedElsewhere(error: unknown, type: string): never {
    if (!hasErrorCode(error, "request-finished")) throw error;
    this.abort.abort();
    throw writeAfterAbort("event", type);
  }
}

/** A claim whose run has started: what the executor gets. */
export class StartedRun implements ClaimedRun {
  readonly id: string;
  readonly abort: RunAbort;
  readonly block: AnyBlock;
  readonly policy: ActionDefinition | WebhookBinding;

  constructor(
    private readonly claim: RunClaim,
    readonly flow: RegisteredFlow,
    readonly session: SessionRecord,
    target: RunTarget,
  ) {
    this.id = claim.id;
    this.abort = claim.abort;
    this.block = target.block;
    this.policy = target.policy;
  }

  emit(type: string, data: JsonObject): Promise<unknown> {
    return this.claim.emit(type, data);
  }
}
