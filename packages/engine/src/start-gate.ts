import { FlowError } from "@flowrt/core";

/**
 * Whether a host has started, and the one start it makes. `new` until its start succeeds, then `started`;
 * `closed` for good. Every entry point asks here (sessions, actions, retries, the resource routes, webhooks):
 * a host never started starts on first use, a closed one refuses.
 */
export class StartGate {
  private state: "new" | "started" | "closed" = "new";
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

  /**
   * One start at a time: calls made while it runs share it. A failed start (a database not reachable yet) is not
   * kept: the next call, or the next request, tries again.
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

  /** The start work has set the stores up: from here on the host serves (unless it was closed meanwhile). */
  markStarted(): boolean {
    if (this.state === "closed") return false;
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
    if (this.state !== "started") {
      throw new FlowError(
        "host-not-started",
        this.state === "new" ? "The host has not started." : "This host is closed.",
      );
    }
  }

  /** Marks the host closed; false when it already was. */
  close(): boolean {
    if (this.state === "closed") return false;
    this.state = "closed";
    return true;
  }
}
