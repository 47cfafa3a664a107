import { FlowError } from "@flowrt/core";
import type { TokenBudget } from "./block-run.js";

/** The tokens a model step reports, input plus output when the provider gives no total. */
export function tokensOf(usage: {
  inputTokens?: number | undefined;
  outputTokens?: number | undefined;
  totalTokens?: number | undefined;
}): number {
  const total = usage.totalTokens ?? (usage.inputTokens ?? 0) + (usage.outputTokens ?? 0);
  return Number.isFinite(total) && total > 0 ? total : 0;
}

/**
 * Tracks one generator run against its own `tokenBudget` and the action run's shared {@link TokenBudget};
 * whichever limit is reached first stops the generator.
 */
export class GeneratorTokens {
  private used = 0;
  private exceeded: FlowError | undefined;

  constructor(
    private readonly blockName: string,
    private readonly shared: TokenBudget,
    private readonly ownLimit: number | undefined,
  ) {}

  /**
   * Refuses to start when the action's budget is already spent: any model call would use at least one
   * more token.
   */
  assertCanStart(): void {
    const { limit, used } = this.shared;
    if (limit !== undefined && used >= limit) {
      throw this.error("action", limit, used);
    }
  }

  /** Adds one step's usage to both counters and records (does not throw) the first limit passed. */
  charge(tokens: number): void {
    this.used += tokens;
    this.shared.used += tokens;
    if (this.exceeded !== undefined) return;
    if (this.ownLimit !== undefined && this.used > this.ownLimit) {
      this.exceeded = this.error("generator", this.ownLimit, this.used);
    } else if (this.shared.limit !== undefined && this.shared.used > this.shared.limit) {
      this.exceeded = this.error("action", this.shared.limit, this.shared.used);
    }
  }

  /**
   * Whether a limit is reached (used up exactly, or passed): no further model call may start, as any would
   * use at least one more token.
   */
  spent(): boolean {
    const { limit, used } = this.shared;
    return (
      (this.ownLimit !== undefined && this.used >= this.ownLimit) || (limit !== undefined && used >= limit)
    );
  }

  /** The error of a generator stopped with its budget used up while the model still called tools. */
  stoppedError(): FlowError {
    const own = this.ownLimit !== undefined && this.used >= this.ownLimit;
    const limit = own ? this.ownLimit! : this.shared.limit!;
    const used = own ? this.used : this.shared.used;
    return this.error(own ? "generator" : "action", limit, used, true);
  }

  /**
   * The `token-budget-exceeded` error once a limit is passed, by this generator or (through the shared
   * budget) by a sibling running in parallel; `undefined` while within budget.
   */
  exceededError(): FlowError | undefined {
    if (
      this.exceeded === undefined &&
      this.shared.limit !== undefined &&
      this.shared.used > this.shared.limit
    ) {
      this.exceeded = this.error("action", this.shared.limit, this.shared.used);
    }
    return this.exceeded;
  }

  private error(budget: "generator" | "action", limit: number, used: number, stopped = false): FlowError {
    const whose = budget === "generator" ? `generator "${this.blockName}"` : "the action";
    return new FlowError(
      "token-budget-exceeded",
      stopped
        ? `Generator "${this.blockName}" stopped: ${used} tokens used up the ${limit}-token budget of ${whose} while the model was still calling tools.`
        : `Generator "${this.blockName}" used ${used} tokens, past the ${limit}-token budget of ${whose}.`,
      { details: { block: this.blockName, budget, limit, used } },
    );
  }
}
