import type { RequestEvent } from "@flowrt/core";

/** The block a failed request failed in, as its event log shows it. */
export interface FailedBlock {
  block: string;
  kind: string;
  /** The blocks it ran inside, outermost first (a sequencer's step: `["checkout"]`). */
  path: string[];
}

/**
 * The engine writes `block.started` before a block runs and `block.completed` after it returns, and nothing when
 * it throws; so the block that failed is the innermost one started and never completed. Blocks that ran side by
 * side (`parallel`) may leave more than one open: the last one started is named. `null` when no block was open
 * (a failure before any block ran: input, principal, a hook).
 */
export function failedBlock(events: readonly RequestEvent[]): FailedBlock | null {
  const open: Array<{ block: string; kind: string }> = [];
  for (const event of events) {
    const data = event.data as { block?: unknown; kind?: unknown } | undefined;
    if (typeof data?.block !== "string") continue;
    if (event.type === "block.started") {
      open.push({ block: data.block, kind: typeof data.kind === "string" ? data.kind : "" });
    } else if (event.type === "block.completed") {
      const at = open.findLastIndex((entry) => entry.block === data.block);
      if (at >= 0) open.splice(at, 1);
    }
  }
  const last = open.at(-1);
  if (!last) return null;
  return { block: last.block, kind: last.kind, path: open.slice(0, -1).map((entry) => entry.block) };
}
