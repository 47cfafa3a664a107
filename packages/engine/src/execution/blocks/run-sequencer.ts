import type { AnyBlock, SequencerBlock, SequencerStep } from "@flowrt/core";
import { abortedError, isAbort, runAborted } from "./abort.js";
import type { BlockRun } from "./block-run.js";
import type { ExecuteBlock } from "./execute-block.js";

type Outputs = Record<string, unknown>;

/**
 * Runs a sequencer's steps in order, each on the previous step's output (the first on the sequencer's
 * input, or on what the step's `input` mapper returns). The sequencer's output is the last step's.
 */
export async function runSequencer(
  block: SequencerBlock,
  input: unknown,
  run: BlockRun,
  execute: ExecuteBlock,
): Promise<unknown> {
  // Null prototype: `as` names are application strings, and "__proto__" must be an ordinary key here.
  const outputs: Outputs = Object.create(null);
  let prev = input;
  for (const [index, step] of block.steps.entries()) {
    if (runAborted(run)) {
      throw abortedError(`step ${index} of sequencer "${block.name}"`, run.signal.reason);
    }
    const result = await runStep(step, prev, outputs, run, execute);
    if (result.skipped) continue;
    prev = result.output;
    if (step.as !== undefined) outputs[step.as] = prev;
  }
  return prev;
}

type StepResult = { skipped: true } | { skipped: false; output: unknown };

async function runStep(
  step: SequencerStep,
  prev: unknown,
  outputs: Outputs,
  run: BlockRun,
  execute: ExecuteBlock,
): Promise<StepResult> {
  const ctx = run.ctx;
  switch (step.type) {
    case "step": {
      const stepInput = step.input ? await step.input(prev, ctx, outputs) : prev;
      return { skipped: false, output: await execute(step.block, stepInput, run) };
    }
    case "stepIf": {
      // A skipped step passes the previous output through and leaves its `as` name unset, so that later
      // steps can tell that it did not run.
      if (!(await step.predicate(prev, ctx, outputs))) return { skipped: true };
      const stepInput = step.input ? await step.input(prev, ctx, outputs) : prev;
      return { skipped: false, output: await execute(step.block, stepInput, run) };
    }
    case "parallel": {
      const stepInput = step.input ? await step.input(prev, ctx, outputs) : prev;
      return { skipped: false, output: await runParallel(step.blocks, stepInput, run, execute) };
    }
    case "rescue": {
      const stepInput = step.input ? await step.input(prev, ctx, outputs) : prev;
      try {
        return { skipped: false, output: await execute(step.block, stepInput, run) };
      } catch (error) {
        if (isAbort(error, run.signal)) throw error;
        const fallback = step.fallback;
        const output =
          typeof fallback === "function"
            ? await fallback(error, prev, ctx, outputs)
            : await execute(fallback, stepInput, run);
        return { skipped: false, output };
      }
    }
  }
}

/**
 * Runs every block concurrently on the same input and returns their outputs in order. On the first
 * failure the other branches are told to stop (through a signal of their own, observed at their next
 * block or generator step); the step then waits for them to settle, so that no branch emits events
 * after the step has failed, and fails with that first error.
 */
async function runParallel(
  blocks: readonly AnyBlock[],
  input: unknown,
  run: BlockRun,
  execute: ExecuteBlock,
): Promise<unknown[]> {
  const siblings = new AbortController();
  const branchRun: BlockRun = {
    ctx: run.ctx,
    budget: run.budget,
    signal: AbortSignal.any([run.signal, siblings.signal]),
    emit: (type, data) => run.emit(type, data),
    loadBlockResources: (block) => run.loadBlockResources(block),
    contentTools: () => run.contentTools(),
  };
  let failure: { error: unknown } | undefined;
  const settled = await Promise.allSettled(
    blocks.map((block) =>
      execute(block, input, branchRun).catch((error: unknown) => {
        if (failure === undefined) {
          failure = { error };
          siblings.abort();
        }
        throw error;
      }),
    ),
  );
  if (failure !== undefined) throw failure.error;
  return settled.map((outcome) => (outcome as PromiseFulfilledResult<unknown>).value);
}
