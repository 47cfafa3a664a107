import type { AnyBlock, AnyBlockContext, BlockContext } from "@flowrt/core";
import type { BlockRun } from "./block-run.js";
import { executeBlock } from "./execute-block.js";
import { jsonRefusal } from "./json-data.js";

/**
 * The parts of an action's (or webhook binding's) execution policy that block execution applies.
 * `durable` is the host's concern and `tokenBudget` is read when the host builds the run's budget
 * (see `createTokenBudget`).
 */
export interface ActionHooks {
  onCompleted?: ((output: unknown, ctx: AnyBlockContext) => unknown) | undefined;
  onErrored?: ((error: unknown, ctx: AnyBlockContext) => unknown) | undefined;
}

function describeError(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

async function callHook(
  name: "onCompleted" | "onErrored",
  hook: ((value: unknown, ctx: AnyBlockContext) => unknown) | undefined,
  value: unknown,
  ctx: BlockContext,
): Promise<void> {
  if (hook === undefined) return;
  try {
    await hook(value, ctx);
  } catch (error) {
    // A hook runs after the outcome is decided; its failure is the application's to see in the log,
    // never a reason to change the request's outcome.
    try {
      ctx.log.error(`${name} hook failed: ${describeError(error)}`, { hook: name });
    } catch {
      // A failing logger must not turn a settled outcome into a crash either.
    }
  }
}

/** Calls the policy's `onCompleted(output, ctx)`; a throw (or rejection) is logged through `ctx.log`, not raised. */
export function callOnCompleted(hooks: ActionHooks, output: unknown, ctx: BlockContext): Promise<void> {
  return callHook("onCompleted", hooks.onCompleted, output, ctx);
}

/** Calls the policy's `onErrored(error, ctx)`; a throw (or rejection) is logged through `ctx.log`, not raised. */
export function callOnErrored(hooks: ActionHooks, error: unknown, ctx: BlockContext): Promise<void> {
  return callHook("onErrored", hooks.onErrored, error, ctx);
}

/**
 * Runs an action's block with its policy hooks: on success `onCompleted(output, ctx)` and the output is
 * returned; on failure (an abort included) `onErrored(error, ctx)` and the error is rethrown unchanged.
 * The run's `budget` should come from `createTokenBudget(action.tokenBudget)`.
 */
export function runAction(
  action: ActionHooks & { block: AnyBlock },
  input: unknown,
  run: BlockRun,
  /** `input` already went through the block's `inputSchema` (see {@link executeBlock}). */
  inputParsed = false,
): Promise<unknown> {
  // Without hooks there is nothing to add around the block: it runs without a frame of this function.
  if (action.onCompleted === undefined && action.onErrored === undefined)
    return executeBlock(action.block, input, run, inputParsed);
  return runWithHooks(action, input, run, inputParsed);
}

async function runWithHooks(
  action: ActionHooks & { block: AnyBlock },
  input: unknown,
  run: BlockRun,
  inputParsed: boolean,
): Promise<unknown> {
  let output: unknown;
  try {
    output = await executeBlock(action.block, input, run, inputParsed);
    // The request stores the output as JSON: one JSON cannot hold fails the request, so it is an error
    // here (`onErrored`), not a completion (`onCompleted`) followed by a failed request.
    const refusal = jsonRefusal(output, "output");
    if (refusal) throw refusal;
  } catch (error) {
    if (action.onErrored !== undefined) await callOnErrored(action, error, run.ctx);
    throw error;
  }
  if (action.onCompleted !== undefined) await callOnCompleted(action, output, run.ctx);
  return output;
}
