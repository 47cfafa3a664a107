import type { z } from "zod";
import { DefinitionError } from "../errors.js";
import { blockBase } from "./block-base.js";
import type {
  AnyBlock,
  BlockOutput,
  ResourceMap,
  SequencerBlock,
  SequencerStep,
} from "./block-definition.js";
import { isBlockDefinition } from "./block-definition.js";
import type { AnySchema, SchemaInput } from "./schema.js";
import { isSequencerStep, step } from "./sequencer-steps.js";
import { describe } from "./validate.js";

/** A step, or a bare block as shorthand for `step(block)`. */
export type SequencerStepInput = SequencerStep<any> | AnyBlock;

type StepOutput<S> = S extends AnyBlock
  ? BlockOutput<S>
  : S extends { readonly "~output"?: infer O }
    ? O
    : unknown;

/** The output of the last step of a steps tuple. */
export type LastStepOutput<TSteps> = TSteps extends readonly [...unknown[], infer TLast]
  ? StepOutput<TLast>
  : unknown;

export interface SequencerOptions<
  TIn extends AnySchema | undefined,
  TOut extends AnySchema | undefined,
  TResources extends ResourceMap,
  TSteps extends readonly SequencerStepInput[],
> {
  name: string;
  description?: string;
  /** Validates the sequencer's input, which the first step receives. @default no validation */
  inputSchema?: TIn;
  /** Validates the last step's output, which is the sequencer's output. @default no validation */
  outputSchema?: TOut;
  /** Action-level resources for the whole sequence (accessor → resource definition). @default {} */
  resources?: TResources;
  /** At least one; made with `step`, `stepIf`, `parallel`, `rescue`, or a bare block. */
  steps: TSteps;
}

/**
 * Defines a sequencer block. Semantics, which the engine implements:
 * - steps run in order; each receives the previous step's output (the first receives the sequencer's
 *   input), or what its `input` mapper returns;
 * - the sequencer's output is the last step's output;
 * - `stepIf` skips its block when the predicate is false and passes the previous output through;
 * - `parallel` runs its blocks concurrently on the same input and outputs the array of their outputs;
 * - `rescue` runs a fallback when its block fails; any other failing step fails the sequencer;
 * - `as` keeps a step's output under a name, passed to later mappers, predicates and fallbacks.
 */
export function sequencer<
  const TSteps extends readonly SequencerStepInput[],
  TIn extends AnySchema | undefined = undefined,
  TOut extends AnySchema | undefined = undefined,
  TResources extends ResourceMap = {},
>(
  options: SequencerOptions<TIn, TOut, TResources, TSteps>,
): SequencerBlock<SchemaInput<TIn>, TOut extends AnySchema ? z.output<TOut> : LastStepOutput<TSteps>> {
  const { base, where, options: raw } = blockBase("sequencer", options, ["steps"]);
  const steps = raw.steps;
  if (!Array.isArray(steps) || steps.length === 0) {
    throw new DefinitionError(`${where}: "steps" must be a non-empty array, got ${describe(steps)}.`);
  }
  const names = new Set<string>();
  const normalized = steps.map((entry, i): SequencerStep => {
    const s = isBlockDefinition(entry) ? step(entry) : entry;
    if (!isSequencerStep(s)) {
      throw new DefinitionError(
        `${where}: steps[${i}] must be a block or made with step(), stepIf(), parallel() or rescue(), got ${describe(entry)}.`,
      );
    }
    if (s.as !== undefined) {
      if (names.has(s.as)) {
        throw new DefinitionError(
          `${where}: two steps are named "${s.as}" with "as"; step names must be unique.`,
        );
      }
      names.add(s.as);
    }
    return s;
  });
  return Object.freeze({ ...base, steps: Object.freeze(normalized) });
}
