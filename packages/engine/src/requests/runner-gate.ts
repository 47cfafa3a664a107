import { FlowError } from "@flowrt/core";

/**
 * Whether a {@link RequestRunner} still takes work, and its close: submissions are admitted until the close begins
 * (those under way are let through and launched), runs are launched until the submissions under way are in, and
 * the close waits for every launched run to settle, for at most a grace period. Past it the runner's `leave` hands
 * on what still runs, and from then on {@link leaving} tells it to hand on whatever it claims late.
 */
export class RunnerGate {
  /** No new submissions from here on ({@link close} has begun). */
  #closing = false;
  /** Submissions persisting now, and who waits for the last of them. */
  #submitting = 0;
  #submitted: (() => void) | undefined;
  /** Nothing more is launched (submissions under way have been launched). */
  #closed = false;
  /** The grace period is over: what still runs, or is claimed from now on, is handed on. */
  #leaving = false;
  /** {@link close} has finished. */
  #drained = false;
  /** Runs launched and not yet settled, and who waits for the last of them. */
  #launched = 0;
  #idle: { promise: Promise<void>; resolve: () => void } | undefined;

  get leaving(): boolean {
    return this.#leaving;
  }

  /**
   * Admits one submission, counted as under way until the returned function is called; refused once the close has
   * begun (503 `host-draining`, retryable) or has ended.
   */
  admit(): () => void {
    if (this.#drained)
      throw new FlowError("host-not-started", "This host is closed; the request was not accepted.");
    if (this.#closing)
      throw new FlowError("host-draining", "This host is shutting down; the request was not accepted.", {
        retryable: true,
      });
    this.#submitting++;
    return () => {
      if (--this.#submitting === 0) this.#submitted?.();
    };
  }

  /** Counts one run launched; false once nothing is launched any more. */
  launch(): boolean {
    if (this.#closed) return false;
    this.#launched++;
    return true;
  }

  /** One launched run has settled. */
  settled(): void {
    if (--this.#launched === 0 && this.#idle !== undefined) {
      const idle = this.#idle;
      this.#idle = undefined;
      idle.resolve();
    }
  }

  /**
   * Stops admitting, lets submissions under way launch, and waits for every launched run to settle: for at most
   * `graceMs` (default: as long as it takes). Past it, `leave` is called (after {@link leaving} turns true) and the
   * close returns without waiting for the runs.
   */
  async close(graceMs: number | undefined, leave: () => Promise<void>): Promise<void> {
    this.#closing = true;
    const grace = graceMs ?? Number.POSITIVE_INFINITY;
    let timer: NodeJS.Timeout | undefined;
    const deadline = Number.isFinite(grace)
      ? new Promise<"deadline">((resolve) => {
          timer = setTimeout(() => resolve("deadline"), Math.max(0, grace));
        })
      : undefined;
    try {
      const drained = this.#drain();
      if (deadline === undefined) await drained;
      else if ((await Promise.race([drained, deadline])) === "deadline") {
        this.#leaving = true;
        this.#closed = true;
        await leave();
      }
    } finally {
      clearTimeout(timer);
      this.#drained = true;
    }
  }

  /** Submissions under way launch, then every launched run settles. */
  async #drain(): Promise<"drained"> {
    while (this.#submitting > 0) {
      await new Promise<void>((resolve) => {
        this.#submitted = resolve;
      });
    }
    this.#submitted = undefined;
    this.#closed = true;
    while (this.#launched > 0) {
      if (this.#idle === undefined) {
        let resolve!: () => void;
        const promise = new Promise<void>((done) => {
          resolve = done;
        });
        this.#idle = { promise, resolve };
      }
      await this.#idle.promise;
    }
    return "drained";
  }
}
