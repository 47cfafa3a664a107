import { FlowError, isFlowError } from "@flowrt/core";
import { countCasRetry } from "../telemetry/cas-retries.js";

/** What one try of a compare-and-swap loop answers: the write landed (with its value), or it lost the race. */
export type CasStep<T> = { readonly done: true; readonly value: T } | { readonly done: false };

/** The step that lost its race: the loop reads again and tries once more. */
export const CAS_LOST: CasStep<never> = Object.freeze({ done: false });

/** A step that won, with what the loop answers. */
export function casDone<T>(value: T): CasStep<T> {
  return { done: true, value };
}

export interface CasPolicy {
  /** Names the write in the typed failure ("request r1 finish", "resource notes/a patchState"). */
  what: string;
  /** Tries at least this many times. @default 100 */
  attempts?: number;
  /**
   * Keeps trying past `attempts` while this many milliseconds have not passed since the first try: under
   * heavy contention a fast loser is not given up on before a slow one would be. 0 bounds by count alone.
   * @default 10_000
   */
  windowMs?: number;
  /** Past this many lost tries each retry first waits a random pause of up to `attempt × 2` ms (at most 50). @default 3 */
  backoffAfter?: number;
}

const EXHAUSTED = Symbol.for("flowrt.casExhausted");

/**
 * The typed failure of a compare-and-swap loop that kept losing: a `write-conflict` (409, retryable) naming
 * the write and how many tries it made. Nothing was written by the loop.
 */
export class CasExhaustedError extends FlowError {
  readonly attempts: number;
  readonly [EXHAUSTED] = true;

  constructor(what: string, attempts: number) {
    super("write-conflict", `${what} lost its compare-and-swap race ${attempts} times; try again.`, {
      retryable: true,
    });
    this.name = "CasExhaustedError";
    this.attempts = attempts;
  }
}

/** True for a {@link CasExhaustedError} from any copy of the engine. */
export function isCasExhausted(error: unknown): error is CasExhaustedError {
  return isFlowError(error) && EXHAUSTED in error;
}

const pause = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * The one compare-and-swap retry loop of the engine. `step` reads what it needs, computes and writes under a
 * version condition, and answers {@link casDone} when the write landed (or there is nothing to write) or
 * {@link CAS_LOST} when another writer got there first. A lost step is retried, with a short random pause
 * once the race has been lost a few times, until the policy's bound; then {@link CasExhaustedError}. A step
 * that throws ends the loop with its error. `step` may run more than once, so it must not have side effects
 * beyond its conditional write.
 */
export async function retryCas<T>(
  policy: CasPolicy,
  step: (attempt: number) => Promise<CasStep<T>>,
): Promise<T> {
  const attempts = policy.attempts ?? 100;
  const windowMs = policy.windowMs ?? 10_000;
  const backoffAfter = policy.backoffAfter ?? 3;
  // Read at the first loss: a loop that wins at once (nearly all) never reads the clock.
  let firstLossAt: number | undefined;
  for (let attempt = 0; ; attempt++) {
    const result = await step(attempt);
    if (result.done) return result.value;
    firstLossAt ??= Date.now();
    if (attempt + 1 >= attempts && Date.now() - firstLossAt >= windowMs)
      throw new CasExhaustedError(policy.what, attempt + 1);
    countCasRetry();
    if (attempt > backoffAfter) await pause(Math.random() * Math.min(50, attempt * 2));
  }
}
