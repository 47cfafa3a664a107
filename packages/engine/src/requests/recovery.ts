import type { FlowStores, RequestRecord } from "@flowrt/core";
import type { HostLogger } from "../logger.js";
import type { RequestLifecycle } from "./lifecycle.js";

export interface RecoveryOptions {
  stores: FlowStores;
  lifecycle: RequestLifecycle;
  leaseMs: number;
  /** Whether this host runs the request now (its claim is ours and live). */
  isRunningHere(requestId: string): boolean;
  /** Claims and runs a durable record in the background. */
  launch(record: RequestRecord): void;
  /**
   * How long a durable request may stay queued before a pass takes it: the host that accepted it launches it at
   * once, so a periodic pass leaves it that long (one lease) rather than racing the acceptor for it. The pass at
   * start takes every queued one (0): nothing of this process is running yet. @default 0
   */
  queuedGraceMs?: number;
}

/**
 * One recovery pass: claims and runs durable requests left queued, or running under a lapsed claim (a host that
 * died). Non-durable requests orphaned the same way are marked failed: nobody promised to finish them. How many
 * durable requests it launched. Either way exactly one run goes on: a launch claims the request first.
 */
export async function recoverRequests(options: RecoveryOptions): Promise<number> {
  const { stores, lifecycle, leaseMs } = options;
  const queuedGraceMs = options.queuedGraceMs ?? 0;
  const candidates = await stores.requests.listByStatus(["queued", "running"]);
  let launched = 0;
  const now = Date.now();
  for (const record of candidates) {
    if (options.isRunningHere(record.id)) continue;
    const lapsed =
      record.status === "queued"
        ? now - Date.parse(record.createdAt) >= queuedGraceMs
        : (record.claim?.until ?? 0) < now;
    if (!lapsed) continue;
    if (record.durable) {
      options.launch(record);
      launched++;
    } else if (record.status === "running" || now - Date.parse(record.createdAt) > leaseMs) {
      // The dead host never left the active registry: leave it for it, before the terminal event.
      await lifecycle.orphan(record, () => stores.requests.clearActive(record.id));
    }
  }
  return launched;
}

/**
 * The periodic recovery passes of a started host. Without periodic passes (`intervalMs: 0`), one more pass once
 * every claim live at start has lapsed: a durable request this host's previous process held (killed and restarted
 * within its lease) is resumed too.
 */
export function scheduleRecovery(
  pass: () => Promise<unknown>,
  options: { intervalMs: number; leaseMs: number; logger: HostLogger },
): NodeJS.Timeout {
  const recover = () => {
    pass().catch((error: unknown) => {
      options.logger.warn({ error: String(error) }, "durable recovery pass failed");
    });
  };
  const timer =
    options.intervalMs > 0
      ? setInterval(recover, options.intervalMs)
      : setTimeout(recover, options.leaseMs + 100);
  timer.unref?.();
  return timer;
}
