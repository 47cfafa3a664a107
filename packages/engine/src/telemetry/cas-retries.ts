import { engineMetrics } from "./instruments.js";

/**
 * Counts one compare-and-swap retry in `flowrt.cas.retries` (no attributes: what a loop names holds ids). Called
 * only when a race was lost, so a write that wins at once costs nothing here.
 */
export function countCasRetry(): void {
  const meters = engineMetrics();
  if (meters.enabled) meters.casRetries.add(1);
}
