import { hasErrorCode } from "@flowrt/core";
import { context, trace } from "@opentelemetry/api";
import { engineTracer } from "./instruments.js";
import { recordSpanError } from "./span-error.js";

/** What the block span reads of a block. */
export interface TracedBlock {
  readonly kind: string;
  readonly name: string;
}

/**
 * Runs one block in a span `block {kind} {name}` (`flowrt.block.kind`, `flowrt.block.name`), the active span while
 * it runs: the blocks beneath it, its handler's own instrumented calls and the AI SDK's spans nest under it. The
 * arguments are passed through rather than closed over, so that with no SDK a block costs no extra closure.
 */
export function traceBlock<B extends TracedBlock, X, Y, Z, T>(
  block: B,
  run: (block: B, x: X, y: Y, z: Z) => Promise<T>,
  x: X,
  y: Y,
  z: Z,
): Promise<T> {
  const tracer = engineTracer();
  if (tracer === undefined) return run(block, x, y, z);
  const span = tracer.startSpan(`block ${block.kind} ${block.name}`);
  if (!trace.isSpanContextValid(span.spanContext())) return run(block, x, y, z);
  if (span.isRecording()) {
    span.setAttribute("flowrt.block.kind", block.kind);
    span.setAttribute("flowrt.block.name", block.name);
  }
  return context.with(trace.setSpan(context.active(), span), run, undefined, block, x, y, z).then(
    (output) => {
      span.end();
      return output;
    },
    (error: unknown) => {
      if (hasErrorCode(error, "request-aborted")) span.setAttribute("flowrt.run.aborted", true);
      else recordSpanError(span, error);
      span.end();
      throw error;
    },
  );
}
