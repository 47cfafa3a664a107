import { FlowError } from "@flowrt/core";

/**
 * The abort switch of one request run. Reading an `AbortController`'s `signal` builds an `EventTarget`
 * (microseconds each, and garbage), while most runs never hand a signal to anything: the controller is
 * made when `signal` is first read, already aborted if the run was. `aborted` answers without it.
 */
export class RunAbort {
  private controller: AbortController | undefined;
  private fired = false;
  private why: unknown;
  private done = false;

  get aborted(): boolean {
    return this.fired;
  }

  /**
   * Whether the run has finished: its block tree and hooks returned, and its terminal status is being written.
   * A context kept past that (a timer, an unawaited promise) can no longer write or emit: nothing of a run
   * follows its terminal event. The signal does not fire for it.
   */
  get ended(): boolean {
    return this.done;
  }

  end(): void {
    this.done = true;
  }

  get signal(): AbortSignal {
    if (this.controller === undefined) {
      this.controller = new AbortController();
      if (this.fired) this.controller.abort(this.why);
    }
    return this.controller.signal;
  }

  abort(reason?: unknown): void {
    if (this.fired) return;
    this.fired = true;
    this.why = reason;
    this.controller?.abort(reason);
  }
}

/** What a write asks of the run it belongs to: whether it was aborted, or has ended (absent outside a run). */
export interface AbortState {
  readonly aborted?: boolean | undefined;
  readonly ended?: boolean | undefined;
}

/**
 * Refuses a run's write once the run is aborted: `request-aborted`, thrown before anything is stored.
 * The message (`… state write to "notes/a" …`) is made only when it is thrown, so the write of a
 * running request builds nothing for the check. `run` is undefined (or has no `aborted`) outside a
 * request, e.g. for a client call, which is never refused here.
 */
export function refuseIfAborted(run: AbortState | undefined, what: string, name: string): void {
  if (run?.aborted === true) throw writeAfterAbort(what, name);
  if (run?.ended === true) throw writeAfterEnd(what, name);
}

/** The `request-finished` refusal of a write or event by a run that has already ended. */
export function writeAfterEnd(what: string, name: string): FlowError {
  return new FlowError(
    "request-finished",
    `The request has already finished: ${what} "${name}" was refused and nothing was stored.`,
  );
}

/** The `request-aborted` refusal of a write after the abort (`what` "create of", `name` "notes/a"). */
export function writeAfterAbort(what: string, name: string): FlowError {
  return new FlowError(
    "request-aborted",
    `The request was aborted: ${what} "${name}" was refused and nothing was stored.`,
  );
}
