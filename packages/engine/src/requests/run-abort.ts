/**
 * The abort switch of one request run. Reading an `AbortController`'s `signal` builds an `EventTarget`
 * (microseconds each, and garbage), while most runs never hand a signal to anything: the controller is
 * made when `signal` is first read, already aborted if the run was. `aborted` answers without it.
 */
export class RunAbort {
  private controller: AbortController | undefined;
  private fired = false;
  private why: unknown;

  get aborted(): boolean {
    return this.fired;
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
