import {
  type ActiveRequestEntry,
  FlowError,
  type FlowStores,
  type JsonObject,
  type NewRequestEvent,
  type RequestError,
  type RequestPatch,
  type RequestRecord,
  type RequestStatus,
  type RequestUpdateEffects,
  TERMINAL_REQUEST_STATUSES,
} from "@flowrt/core";
import { CAS_LOST, casDone, isCasExhausted, retryCas } from "../state/cas.js";
import { isoNow } from "./clock.js";
import { appendRequestEvent } from "./event-log.js";

/**
 * A request's life: `queued → running → completed | failed | aborted`. `running → running` is a take-over (a new
 * claim on a request whose claim lapsed). Nothing leaves a terminal status.
 */
const NEXT: Readonly<Record<RequestStatus, readonly RequestStatus[]>> = {
  queued: ["running", "failed", "aborted"],
  running: ["running", "completed", "failed", "aborted"],
  completed: [],
  failed: [],
  aborted: [],
};

/** Whether a request may move from `from` to `to`. */
export function isLegalTransition(from: RequestStatus, to: RequestStatus): boolean {
  return NEXT[from].includes(to);
}

/** The error of a non-durable request whose host stopped: on the record and on its `request.failed` event. */
const ORPHANED: RequestError = Object.freeze({
  code: "host-lost",
  message:
    "The host running this request stopped before it finished; the request was not durable, so no other host resumed it.",
  retryable: false,
});

const ABORTED: RequestError = Object.freeze({ code: "request-aborted", message: "The request was aborted." });

/** How a finished run ends: its status and what the record keeps of it. */
export type TerminalPatch =
  | { status: "completed"; output: RequestPatch["output"] }
  | { status: "failed" | "aborted"; error: RequestError };

/** The event that closes a request's log, for the patch that ended it. */
function terminalEvent(patch: TerminalPatch): [type: string, data: JsonObject] {
  if (patch.status === "completed") return ["request.completed", { output: patch.output ?? null }];
  if (patch.status === "aborted") return ["request.aborted", {}];
  const { code, message, retryable, errorId } = patch.error;
  const error: JsonObject = { code, message };
  if (retryable !== undefined) error.retryable = retryable;
  if (errorId !== undefined) error.errorId = errorId;
  return ["request.failed", { error }];
}

/** What a claim that starts its run writes with it: the active-registry entry and `request.started`. */
function startEffects(record: RequestRecord, startedAt: string): RequestUpdateEffects {
  const active: ActiveRequestEntry = {
    requestId: record.id,
    sessionId: record.sessionId,
    flowId: record.flowId,
    userId: record.userId,
    action: record.action,
    startedAt,
  };
  if (record.orgId) active.orgId = record.orgId;
  const data: JsonObject = { action: record.action, sessionId: record.sessionId };
  if (record.metadata.webhook) data.webhook = record.metadata.webhook;
  return { active, events: [{ requestId: record.id, type: "request.started", at: isoNow(), data }] };
}

/**
 * The one place a request's status changes. Every move is a compare-and-swap on the record's version
 * (through {@link retryCas} where it is retried), checked against the legal moves; a move to a terminal status
 * then appends the terminal event, after whatever `beforeEvent` must happen first (leaving the active registry).
 * Claims and their renewals live here too: a claim is the `running` status plus who holds it until when.
 */
export class RequestLifecycle {
  constructor(
    private readonly stores: FlowStores,
    private readonly hostId: string,
    private readonly leaseMs: number,
  ) {}

  /** The conditional write every move goes through, with what it writes alongside ({@link RequestUpdateEffects}). */
  private write(
    id: string,
    from: RequestStatus,
    version: number,
    patch: RequestPatch,
    effects?: RequestUpdateEffects,
  ) {
    if (patch.status !== undefined && !isLegalTransition(from, patch.status)) {
      throw new Error(`Request "${id}" cannot move from ${from} to ${patch.status}.`);
    }
    return effects === undefined
      ? this.stores.requests.update(id, version, patch)
      : this.stores.requests.update(id, version, patch, effects);
  }

  /**
   * Claims a queued request, or a running one whose claim lapsed (its host died): `running`, held by this host
   * for `leaseMs`. One try: a lost race means another host claimed it. The record as claimed, or `null`. With
   * `start`, the run starts in the same write: the request enters the active registry and its log gets
   * `request.started` (one write, one round trip on a database); without, only the claim is made (a closing host
   * claims to hand a request on, and starts nothing).
   */
  async claim(record: RequestRecord, start: boolean): Promise<RequestRecord | null> {
    const now = Date.now();
    const claimable =
      record.status === "queued" || (record.status === "running" && (record.claim?.until ?? 0) < now);
    if (!claimable) return null;
    // Every claim is a new epoch: the writes of the run it starts carry it, and a store refuses them once a later
    // claim (a take-over) has a greater one.
    const patch: RequestPatch = {
      status: "running",
      claim: { hostId: this.hostId, until: now + this.leaseMs },
      epoch: (record.epoch ?? 0) + 1,
      startedAt: record.startedAt ?? isoNow(),
    };
    const result = await this.write(
      record.id,
      record.status,
      record.version,
      patch,
      start ? startEffects(record, patch.startedAt!) : undefined,
    );
    if (!result.ok) return null;
    // The record as claimed, copied with `Object.assign` onto a fresh object, then assigned: a spread followed by
    // more members gives every copy a map of its own (memory and time per run); this keeps one shape.
    const claimed: RequestRecord = Object.assign({}, record);
    claimed.status = "running";
    claimed.startedAt = patch.startedAt;
    claimed.claim = patch.claim ?? undefined;
    claimed.epoch = patch.epoch;
    claimed.version = result.version;
    return claimed;
  }

  /** The stored record, or `null`. */
  read(id: string): Promise<RequestRecord | null> {
    return this.stores.requests.get(id);
  }

  /**
   * Extends this host's claim on a running request it holds at `version`. One try: the new version, or `null`
   * when the record changed meanwhile (aborted, or taken over after the claim lapsed).
   */
  async renew(id: string, version: number): Promise<number | null> {
    const result = await this.stores.requests.update(id, version, {
      claim: { hostId: this.hostId, until: Date.now() + this.leaseMs },
    });
    return result.ok ? result.version : null;
  }

  /**
   * Ends a run this host claimed: its terminal status unless someone else (an abort, another host) already wrote
   * one, then the terminal event. First against the version of the run's own last write (claim or renewal): if
   * it still holds, nobody wrote since. Else it re-reads and decides; a handful of tries, then it leaves the
   * record to recovery. Whether it wrote the terminal status.
   */
  async finish(
    id: string,
    version: number,
    patch: TerminalPatch,
    events: readonly NewRequestEvent[] = [],
  ): Promise<boolean> {
    const stored: RequestPatch = { ...patch, completedAt: isoNow(), claim: null };
    const [type, data] = terminalEvent(patch);
    // Left the active registry and the log's last events with the status, in one write: whoever sees the end sees
    // the request gone from the registry.
    const effects: RequestUpdateEffects = {
      active: null,
      events: [...events, { requestId: id, type, at: stored.completedAt!, data }],
    };
    let wrote: boolean;
    try {
      // A few quick tries, no pauses: the record is this run's, so a loss means someone else just wrote it.
      wrote = await retryCas(
        { what: `Request "${id}" finish`, attempts: 10, windowMs: 0, backoffAfter: 10 },
        async (attempt) => {
          let from: RequestStatus = "running";
          let expected = version;
          if (attempt > 0) {
            const current = await this.stores.requests.get(id);
            if (!current || TERMINAL_REQUEST_STATUSES.includes(current.status)) return casDone(false);
            if (current.claim && current.claim.hostId !== this.hostId) return casDone(false); // taken over
            from = current.status;
            expected = current.version;
          }
          const result = await this.write(id, from, expected, stored, effects);
          return result.ok ? casDone(true) : CAS_LOST;
        },
      );
    } catch (error) {
      if (isCasExhausted(error)) return false;
      throw error;
    }
    return wrote;
  }

  /**
   * Aborts a queued or running request on any host (409 `request-finished` once it has ended). `beforeEvent` runs
   * after the status is written and before the terminal event (the active registry is left in between); it gets
   * the record as it was just before the abort (who held its claim, until when).
   */
  async abort(
    id: string,
    beforeEvent: (before: RequestRecord) => Promise<void> | void,
  ): Promise<RequestRecord> {
    let before: RequestRecord | undefined;
    const aborted = await retryCas({ what: `Request "${id}" abort` }, async () => {
      const current = await this.stores.requests.get(id);
      if (!current) throw new FlowError("request-not-found", `No request "${id}" exists.`);
      if (TERMINAL_REQUEST_STATUSES.includes(current.status)) {
        throw new FlowError("request-finished", `Request "${id}" has already ${current.status}.`);
      }
      const completedAt = isoNow();
      const result = await this.write(id, current.status, current.version, {
        status: "aborted",
        error: ABORTED,
        completedAt,
        claim: null,
      });
      if (!result.ok) return CAS_LOST;
      before = current;
      const record: RequestRecord = {
        ...current,
        status: "aborted",
        error: ABORTED,
        completedAt,
        claim: undefined,
        version: result.version,
      };
      return casDone(record);
    });
    await beforeEvent(before!);
    await this.appendTerminal(id, { status: "aborted", error: ABORTED });
    return aborted;
  }

  /**
   * Fails a non-durable request whose host died (queued past its lease, or running under a lapsed claim): nobody
   * promised to finish it. One try: a lost race means someone else moved it. `beforeEvent` as for {@link abort}.
   */
  async orphan(record: RequestRecord, beforeEvent: () => Promise<void>): Promise<void> {
    const result = await this.write(record.id, record.status, record.version, {
      status: "failed",
      error: ORPHANED,
      completedAt: isoNow(),
      claim: null,
    });
    if (!result.ok) return;
    await beforeEvent();
    await this.appendTerminal(record.id, { status: "failed", error: ORPHANED });
  }

  /**
   * Gives up this host's claim on a running request it holds at `epoch`, leaving it `running` with no claim: the next
   * recovery pass of any host on the store takes it over at once (a new claim, a new epoch), as it would once the
   * claim lapsed. A few tries (a renewal may have moved the version); whether the claim was released. When it was
   * not, it lapses after the lease anyway.
   */
  async release(id: string, epoch: number): Promise<boolean> {
    for (let attempt = 0; attempt < 3; attempt++) {
      const current = await this.stores.requests.get(id);
      if (current?.status !== "running" || current.claim?.hostId !== this.hostId) return false;
      if ((current.epoch ?? 0) !== epoch) return false;
      const result = await this.write(id, "running", current.version, { claim: null });
      if (result.ok) return true;
    }
    return false;
  }

  /**
   * Records a request that failed before it could run (a webhook input that did not validate): it is created
   * `failed`, so this is its only move, and its log holds the one terminal event.
   */
  async failedOnArrival(record: RequestRecord): Promise<void> {
    await this.appendTerminal(record.id, { status: "failed", error: record.error! });
  }

  private appendTerminal(id: string, patch: TerminalPatch): Promise<unknown> {
    const [type, data] = terminalEvent(patch);
    return appendRequestEvent(this.stores.requests, id, type, data);
  }
}
