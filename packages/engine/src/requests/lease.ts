import type { RunClaim } from "./active-run.js";
import type { RequestLifecycle } from "./lifecycle.js";

/**
 * The claims held by requests running here, renewed by one timer (no timer per request). A claim is renewed every
 * third of the lease; one whose renewal finds the record changed (aborted, or taken over after the lease lapsed)
 * aborts its run.
 */
export class LeaseKeeper {
  private readonly held = new Set<RunClaim>();
  private timer: NodeJS.Timeout | undefined;
  /** How often a held claim is renewed. */
  readonly renewEveryMs: number;

  constructor(
    private readonly lifecycle: RequestLifecycle,
    leaseMs: number,
  ) {
    this.renewEveryMs = Math.max(50, Math.floor(leaseMs / 3));
  }

  hold(claim: RunClaim): void {
    this.held.add(claim);
    if (this.timer === undefined) {
      // Half the renewal period: a claim is renewed at most 1.5 periods (half the lease) after the last write.
      this.timer = setInterval(() => this.renewDue(), Math.max(10, this.renewEveryMs >> 1));
      this.timer.unref?.();
    }
  }

  /** The timer stays until a tick finds no claim held (or the runner closes): runs in quick succession share one. */
  release(claim: RunClaim): void {
    this.held.delete(claim);
  }

  stop(): void {
    if (this.timer === undefined) return;
    clearInterval(this.timer);
    this.timer = undefined;
  }

  private renewDue(): void {
    if (this.held.size === 0) {
      this.stop();
      return;
    }
    const now = Date.now();
    for (const claim of this.held) {
      if (claim.due > now) continue;
      claim.due = now + this.renewEveryMs;
      void this.renew(claim).catch(() => {});
    }
  }

  private async renew(claim: RunClaim): Promise<void> {
    const sentAt = Date.now();
    const version = await this.lifecycle.renew(claim.id, claim.version);
    if (version !== null) {
      claim.version = version;
      claim.renewedAt = sentAt;
      return;
    }
    // Aborted, or taken over after our lease lapsed: stop working on it. A take-over (a later claim's epoch) is a
    // lost lease, and the log says so.
    const current = claim.fence === undefined ? null : await this.lifecycle.read(claim.id);
    if (current !== null && (current.epoch ?? 0) > claim.fence!.epoch) {
      claim.loseLease(
        `another host claimed the request (epoch ${current.epoch})`,
        "claim renewal of",
        claim.id,
      );
    } else claim.abort.abort();
  }
}
