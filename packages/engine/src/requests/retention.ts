/**
 * The host's retention schedule. What to keep (`RetentionOptions`, the one `DEFAULT_RETENTION`, `resolveRetention`)
 * is data in `@flowrt/core`; how to remove is each store's `purgeFinished`; when to remove is here.
 */
import type { FlowStores, ResolvedRetention } from "@flowrt/core";
import { describeError, type HostLogger } from "../logger.js";

/**
 * Applies a retention to a store every `intervalMs`, one purge at a time; a failed purge is logged and tried again
 * at the next tick. The timer never keeps the process alive; `stop()` waits for a purge under way.
 */
export class RetentionSchedule {
  private timer: NodeJS.Timeout | undefined;
  private purging: Promise<void> = Promise.resolve();

  constructor(
    private readonly stores: FlowStores,
    private readonly retention: ResolvedRetention,
    private readonly logger: HostLogger,
  ) {}

  start(): void {
    if (this.timer !== undefined) return;
    this.timer = setInterval(() => {
      this.purging = this.purging
        .then(() => this.stores.requests.purgeFinished(this.retention.policy))
        .then(
          () => {},
          (error: unknown) => this.logger.warn({ error: describeError(error) }, "retention purge failed"),
        );
    }, this.retention.intervalMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    await this.purging;
  }
}
