import { isFlowError } from "@flowrt/core";
import { type Span, SpanStatusCode } from "@opentelemetry/api";

/**
 * A low-cardinality name for a failure (`error.type`): a `FlowError`'s catalogue code, else the error's class name
 * (`TypeError`), else `_OTHER` as the semantic conventions say.
 */
export function errorTypeOf(error: unknown): string {
  if (isFlowError(error)) return error.code;
  if (error instanceof Error && error.name !== "") return error.name;
  return "_OTHER";
}

/**
 * Marks a span failed by `error`: status `ERROR` and `error.type`, the type as the status description. The message
 * and the stack are not put on the span: they are the application's and the store's words and may carry what
 * they were given (a token, a body, a connection string); the server log has them in full.
 */
export function recordSpanError(span: Span, error: unknown): void {
  const type = errorTypeOf(error);
  span.setAttribute("error.type", type);
  span.setStatus({ code: SpanStatusCode.ERROR, message: type });
}
