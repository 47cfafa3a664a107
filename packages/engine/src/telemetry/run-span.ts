import { hasErrorCode } from "@flowrt/core";
import { type Attributes, context, type Span, type Tracer, trace } from "@opentelemetry/api";
import { type EngineMetrics, engineMetrics, engineTracer, NO_TRACER } from "./instruments.js";
import { recordSpanError } from "./span-error.js";

/** What the run span reads of a started run (the runner's `StartedRun` fits). */
export interface TracedRun {
  readonly id: string;
  readonly flow: { readonly id: string; readonly kind: string };
  readonly session: { readonly id: string };
}

/** The `flowrt.runs.active` attributes of a flow, made once per flow (a run allocates none). */
const flowAttributes = new WeakMap<object, Attributes>();

function attributesOf(flow: TracedRun["flow"]): Attributes {
  let attributes = flowAttributes.get(flow);
  if (attributes === undefined) {
    attributes = Object.freeze({ "flowrt.flow.kind": flow.kind });
    flowAttributes.set(flow, attributes);
  }
  return attributes;
}

/**
 * Runs one action run (`execute`: its resources loaded, its block tree run) in a span `action {flowKind}.{action}`,
 * a child of the context the run was launched from (the HTTP route's span, when a context manager carries it), and
 * counts it in `flowrt.runs.active` while it runs. The span carries the flow kind and id, the action, the request
 * and session ids; a failure sets `error.type` (an abort is no failure: `flowrt.run.aborted`).
 */
export function traceActionRun<T>(run: TracedRun, action: string, execute: () => Promise<T>): Promise<T> {
  const meters = engineMetrics();
  const tracer = engineTracer();
  // No SDK: the run itself, with no span, no counter and no promise of its own around it.
  if (tracer === undefined && !meters.enabled) return execute();
  return tracedRun(tracer ?? NO_TRACER, meters, run, action, execute);
}

async function tracedRun<T>(
  tracer: Tracer,
  meters: EngineMetrics,
  run: TracedRun,
  action: string,
  execute: () => Promise<T>,
): Promise<T> {
  const span = tracer.startSpan(`action ${run.flow.kind}.${action}`);
  if (meters.enabled) meters.runsInFlight.add(1, attributesOf(run.flow));
  try {
    if (span.isRecording()) describeRun(span, run, action);
    if (!trace.isSpanContextValid(span.spanContext())) return await execute();
    return await context.with(trace.setSpan(context.active(), span), execute);
  } catch (error) {
    if (hasErrorCode(error, "request-aborted")) span.setAttribute("flowrt.run.aborted", true);
    else recordSpanError(span, error);
    throw error;
  } finally {
    span.end();
    if (meters.enabled) meters.runsInFlight.add(-1, attributesOf(run.flow));
  }
}

function describeRun(span: Span, run: TracedRun, action: string): void {
  span.setAttribute("flowrt.flow.kind", run.flow.kind);
  span.setAttribute("flowrt.flow.id", run.flow.id);
  span.setAttribute("flowrt.action", action);
  span.setAttribute("flowrt.request.id", run.id);
  span.setAttribute("flowrt.session.id", run.session.id);
}
