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
