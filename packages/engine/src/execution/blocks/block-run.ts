import type { AnyBlock, BlockContext, JsonObject } from "@flowrt/core";
import type { AiTelemetrySettings } from "../../telemetry/telemetry-options.js";

/** The stream events block execution appends to a request's log. */
export type BlockEventType = "block.started" | "block.completed" | "text.delta" | "tool.call" | "tool.result";

/**
 * Token accounting shared by every block of one action run. Generators add each model step's usage to
 * `used`; a run that goes past `limit` fails with `token-budget-exceeded`.
 */
export interface TokenBudget {
  /** The most tokens (input + output) the whole action run may use. @default unlimited */
  limit?: number;
  /** Tokens used so far by the run's generators. */
  used: number;
}

/**
 * Marks a content tool made without a scope (`readResourceContentTool()`), by the name of its bound form in
 * {@link BlockRun.contentTools}: a generator given one swaps in that bound form when it runs.
 */
export const UNBOUND_CONTENT_TOOL: unique symbol = Symbol("flowrt.unboundContentTool");

/**
 * What the host hands to {@link executeBlock} for one action run. One `BlockRun` serves the whole block
 * tree: nested blocks share its context, event sink, budget and signal.
 */
export interface BlockRun {
  /** The application-facing context, built by the host; passed unchanged to every block's functions. */
  ctx: BlockContext;
  /** Appends a stream event for the request (persisted in its event log). */
  emit(type: BlockEventType, data: JsonObject): Promise<void>;
  /** Aborts the run: no further block or step starts, and a running generator is cancelled. */
  signal: AbortSignal;
  /**
   * Whether the run is aborted, for a run that can tell without making its signal (the host's runs make
   * theirs on first read). Checked before every block when present, else `signal.aborted`.
   */
  readonly aborted?: boolean;
  /** Shared by every block of the run; see {@link TokenBudget}. */
  budget: TokenBudget;
  /**
   * Called before each block runs so that its declared (action-level) resources are on `ctx.resources`;
   * `undefined` when there is nothing to wait for (the block declares none).
   */
  loadBlockResources(block: AnyBlock): Promise<void> | undefined;
  /**
   * The generic content tools (read/write/glob/grep/search by uri) from the resource engine, as AI SDK
   * tools; added to a generator's tools when its definition sets `contentTools: true`.
   */
  contentTools(): Record<string, unknown>;
  /** The AI SDK `telemetry` setting of the host (`telemetry.ai`), for generators' model calls. */
  readonly aiTelemetry?: AiTelemetrySettings | undefined;
}

/** A budget for one action run, from the action's (or webhook binding's) `tokenBudget`. */
export function createTokenBudget(limit?: number): TokenBudget {
  return limit === undefined ? { used: 0 } : { limit, used: 0 };
}
