/**
 * Step builders for `sequencer`. Steps are frozen, branded objects so that `sequencer` can tell a step
 * from anything else it is handed.
 */
import { DefinitionError } from "../errors.js";
import type {
  AnyBlock,
  BlockOutput,
  BlockStep,
  ConditionalStep,
  ParallelStep,
  RescueFallbackFn,
  RescueStep,
  SequencerStep,
  StepInputMapper,
  StepPredicate,
} from "./block-definition.js";
import { isBlockDefinition } from "./block-definition.js";
import {
  assertKnownKeys,
  assertOptions,
  describe,
  optionalFunction,
  requireBlock,
  requireFunction,
} from "./validate.js";

const STEP_BRAND = Symbol.for("flowrt.sequencer-step");

export interface StepOptions {
  /**
   * Maps the previous step's output (the sequencer input for the first step) to this step's input. Its
   * third argument holds the outputs of earlier steps named with `as`.
   * @default the previous output, unchanged
   */
  input?: StepInputMapper;
  /** Keeps this step's output under this name, for later steps' `input`, predicates and fallbacks. */
  as?: string;
}

function stepFields(where: string, options: StepOptions | undefined) {
  if (options === undefined) return { input: undefined, as: undefined };
  assertOptions(`${where} options`, options);
  assertKnownKeys(`${where} options`, options as Record<string, unknown>, ["input", "as"]);
  const as = options.as;
  if (as !== undefined && (typeof as !== "string" || as.trim() === "")) {
    throw new DefinitionError(`${where}: "as" must be a non-empty string, got ${describe(as)}.`);
  }
  return { input: optionalFunction<StepInputMapper>(where, "input", options.input), as };
}

function brand<T extends object>(value: T): T {
  Object.defineProperty(value, STEP_BRAND, { value: true });
  return Object.freeze(value);
}

/** True for a step made by `step`, `stepIf`, `parallel` or `rescue`. */
export function isSequencerStep(value: unknown): value is SequencerStep {
  return (
    typeof value === "object" && value !== null && (value as Record<symbol, unknown>)[STEP_BRAND] === true
  );
}

/** Runs `block` on the previous output (or on `options.input(prev, ctx, outputs)`). */
export function step<TBlock extends AnyBlock>(
  block: TBlock,
  options?: StepOptions,
): BlockStep<BlockOutput<TBlock>> {
  const checked = requireBlock("step()", "block", block);
  return brand({ type: "step", block: checked, ...stepFields("step()", options) }) as BlockStep<
    BlockOutput<TBlock>
  >;
}

/**
 * Runs `block` only when `predicate(prev, ctx, outputs)` holds; when it does not, the step is skipped
 * and the previous output passes through unchanged (so the output type is not known statically).
 */
export function stepIf<TBlock extends AnyBlock>(
  predicate: StepPredicate,
  block: TBlock,
  options?: StepOptions,
): ConditionalStep<unknown> {
  const checked = requireBlock("stepIf()", "block", block);
  requireFunction("stepIf()", "predicate", predicate);
  return brand({ type: "stepIf", predicate, block: checked, ...stepFields("stepIf()", options) });
}

/**
 * Runs every block concurrently on the same input; the step's output is the array of their outputs, in
 * the order given. The first failure fails the step.
 */
export function parallel<const TBlocks extends readonly AnyBlock[]>(
  blocks: TBlocks,
  options?: StepOptions,
): ParallelStep<{ -readonly [K in keyof TBlocks]: BlockOutput<TBlocks[K]> }> {
  if (!Array.isArray(blocks) || blocks.length === 0) {
    throw new DefinitionError(
      `parallel(): "blocks" must be a non-empty array of blocks, got ${describe(blocks)}.`,
    );
  }
  const checked = Object.freeze(blocks.map((block, i) => requireBlock("parallel()", `blocks[${i}]`, block)));
  return brand({
    type: "parallel",
    blocks: checked,
    ...stepFields("parallel()", options),
  }) as ParallelStep<never>;
}

type FallbackOutput<F> = F extends AnyBlock
  ? BlockOutput<F>
  : F extends (...args: any[]) => infer R
    ? Awaited<R>
    : never;

/**
 * Runs `block`; if it fails, runs `fallback` instead: a block (given the same input the failed block
 * got) or a function `(error, prev, ctx, outputs)` whose result becomes the step's output. An abort of
 * the request is not rescued.
 */
export function rescue<TBlock extends AnyBlock, TFallback extends AnyBlock | RescueFallbackFn>(
  block: TBlock,
  fallback: TFallback,
  options?: StepOptions,
): RescueStep<BlockOutput<TBlock> | FallbackOutput<TFallback>> {
  const checked = requireBlock("rescue()", "block", block);
  if (!isBlockDefinition(fallback) && typeof fallback !== "function") {
    throw new DefinitionError(
      `rescue(): "fallback" must be a block or a function, got ${describe(fallback)}.`,
    );
  }
  return brand({
    type: "rescue",
    block: checked,
    fallback,
    ...stepFields("rescue()", options),
  }) as RescueStep<never>;
}
