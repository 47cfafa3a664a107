/** Every event type a request's stream carries (architecture §3). */
export const REQUEST_EVENT_TYPES = [
  "request.started",
  "block.started",
  "block.completed",
  "text.delta",
  "tool.call",
  "tool.result",
  "state_change",
  "resource_change",
  "request.completed",
  "request.failed",
  "request.aborted",
] as const;

export type RequestEventType = (typeof REQUEST_EVENT_TYPES)[number];

export const TERMINAL_EVENT_TYPES: ReadonlySet<string> = new Set([
  "request.completed",
  "request.failed",
  "request.aborted",
]);

/** {@link REQUEST_EVENT_TYPES} as a set: every one of them is written by the engine itself. */
const ENGINE_EVENT_TYPES: ReadonlySet<string> = new Set(REQUEST_EVENT_TYPES);

/**
 * Whether only the engine may write `type`: the whole `request.*` and `block.*` namespaces and every
 * other type of {@link REQUEST_EVENT_TYPES} (`text.delta`, `tool.call`, `tool.result`, `state_change`,
 * `resource_change`). `ctx.emit` refuses these (`reserved-event-type`), so that a block can neither end a
 * stream with a forged outcome nor pass its own payload off as the engine's.
 */
export function isEngineEventType(type: string): boolean {
  return ENGINE_EVENT_TYPES.has(type) || type.startsWith("request.") || type.startsWith("block.");
}
