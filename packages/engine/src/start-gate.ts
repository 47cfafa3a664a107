import { FlowError } from "@flowrt/core";

/**
 * Whether a host has started, and the one start it makes. `new` until its start succeeds, then `started`;
 * `draining` from the moment `close()` begins until it has finished, then `closed` for good. Every entry point asks
 * here (sessions, actions, retries, the resource routes, webhooks): a host never started starts on first use, a
 * draining one refuses with `host-draining` (503, retryable: another host takes the work), a closed one with
 * `host-not-started`.
 */
export class StartGate {
  private state: "new" | "started" | "draining" | "closed" = "new";
  /** The one start of this host, once asked for. */
  private starting: Promise<void> | undefined;

  /** @param startOnce the host's start work; it calls {@link markStarted} once the stores are set up. */
  constructor(private readonly startOnce: () => Promise<void>) {}

  get started(): boolean {
    return this.state === "started";
  }

  get closed(): boolean {
    return this.state === "closed";
  }

  /** `close()` has begun and not finished: no new work is taken. */
  get draining(): boolean {
    return this.state === "draining";
  }

  /**
   * One start at a time: calls made while it runs share it. A failed start (a database not reachable yet) is not
   * kept: the next call, or the next request, tries again.
   */
  start(): Promise<void> {
    if (this.state === "draining") return Promise.reject(drainingError());
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

  /** The start work has set the stores up: from here on the host serves (unless it was closed meanwhile). */
  markStarted(): boolean {
    if (this.state === "closed" || this.state === "draining") return false;
    this.state = "started";
    return true;
  }

  /** Starts a host that was never started; a started host goes on, a closed one stays closed. */
  async ensureStarted(): Promise<void> {
    if (this.state === "new") await this.start();
  }

  /** Starts a host never started, then refuses if it is closed. */
  async ready(): Promise<void> {
    if (this.state === "new") await this.start();
    this.assertStarted();
  }

  assertStarted(): void {
    if (this.state === "draining") throw drainingError();
    if (this.state !== "started") {
      throw new FlowError(
        "host-not-started",
        this.state === "new" ? "The host has not started." : "This host is closed.",
      );
    }
  }

  /** `close()` begins: no new work from here on. False when it had already begun (or ended). */
  beginDrain(): boolean {
    if (this.state === "closed" || this.state === "draining") return false;
    // A host that never started has no work to drain: closed at once (a start under way never completes).
    this.state = this.state === "new" ? "closed" : "draining";
    return true;
  }

  /** The drain is over: closed for good. */
  close(): void {
    this.state = "closed";
  }
}

function drainingError(): FlowError {
  return new FlowError("host-draining", "This host is shutting down and takes no new work; try again.", {
    retryable: true,
  });
}
