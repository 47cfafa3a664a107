import type { AnyBlock } from "@flowrt/core";
import { traceBlock } from "../../telemetry/block-span.js";
import { abortedError, runAborted } from "./abort.js";
import type { BlockRun } from "./block-run.js";
import { runGenerator } from "./run-generator.js";
import { runRouter } from "./run-router.js";
import { runSequencer } from "./run-sequencer.js";
import { parseBlockInput, parseBlockOutput } from "./validate-io.js";

/**
 * Runs one block (and everything beneath it) for an action run and returns its output.
 *
 * Order, for every block of the tree: refuse if the run is aborted (`request-aborted`); parse the input
 * through `inputSchema` (`invalid-input`, nothing runs and no event is emitted), unless the caller parsed it; emit `block.started`;
 * load the block's declared resources; run it by kind; parse the output through `outputSchema`
 * (`invalid-output`); emit `block.completed`. A failing block emits no `block.completed`: the host
 * records the failure on the request.
 */
export function executeBlock(
  block: AnyBlock,
  input: unknown,
  run: BlockRun,
  /** `input` is already the output of this block's `inputSchema` (parsed once, before dispatch). */
  inputParsed = false,
): Promise<unknown> {
  return traceBlock(block, runBlock, input, run, inputParsed);
}

/** {@link executeBlock} inside the block's span. */
async function runBlock(
  block: AnyBlock,
  input: unknown,
  run: BlockRun,
  inputParsed: boolean,
): Promise<unknown> {
  if (runAborted(run)) throw abortedError(`${block.kind} "${block.name}"`, run.signal.reason);
  // Without a schema (or with the input parsed already) there is nothing to wait for: no await, no promise.
  const parsed = inputParsed || block.inputSchema === undefined ? input : await parseBlockInput(block, input);
  await run.emit("block.started", { block: block.name, kind: block.kind });
  const loading = run.loadBlockResources(block);
  if (loading !== undefined) await loading;
  // An abort may land while the block's events and resources were written: check again before its code runs.
  if (runAborted(run)) throw abortedError(`${block.kind} "${block.name}"`, run.signal.reason);
  let output: unknown;
  switch (block.kind) {
    case "handler":
      output = await block.execute(parsed, run.ctx);
      break;
    case "sequencer":
      output = await runSequencer(block, parsed, run, executeBlock);
      break;
    case "router":
      output = await runRouter(block, parsed, run, executeBlock);
      break;
    case "generator":
      output = await runGenerator(block, parsed, run);
      break;
  }
  const checked = block.outputSchema === undefined ? output : await parseBlockOutput(block, output);
  // Built again rather than kept: an object held across the block's run would be held by every run in flight.
  await run.emit("block.completed", { block: block.name, kind: block.kind });
  return checked;
}

/** The signature of {@link executeBlock}, handed to the composite blocks so that they recurse through it. */
export type ExecuteBlock = typeof executeBlock;
