import type { FlowRequestError, JsonObject, JsonValue, ScopeKind } from "./types.js";

/** Fields every stream event carries: `seq` is per request, from 1, without gaps. */
export interface StreamEventBase {
  seq: number;
  requestId: string;
  /** ISO 8601. */
  at: string;
}

export interface RequestStartedEvent extends StreamEventBase {
  type: "request.started";
  action: string;
  sessionId: string;
  webhook?: JsonObject;
}

export interface BlockStartedEvent extends StreamEventBase {
  type: "block.started";
  /** The block's name. */
  block: string;
  kind: string;
}

export interface BlockCompletedEvent extends StreamEventBase {
  type: "block.completed";
  block: string;
  kind: string;
}

export interface TextDeltaEvent extends StreamEventBase {
  type: "text.delta";
  delta: string;
}

export interface ToolCallEvent extends StreamEventBase {
  type: "tool.call";
  toolCallId: string;
  toolName: string;
  input: JsonValue;
}

export interface ToolResultEvent extends StreamEventBase {
  type: "tool.result";
  toolCallId: string;
  toolName: string;
  output?: JsonValue;
  error?: string;
}

/** A scope's projected client data after a state write (never raw state). */
export interface StateChangeEvent extends StreamEventBase {
  type: "state_change";
  scope: ScopeKind;
  clientData: JsonObject;
}

/**
 * A resource changed. Without `live: true` it is an invalidation cue (refetch the snapshot when the
 * request ends); with it, creates and state writes carry the projected `clientData`, never content.
 */
export interface ResourceChangeEvent extends StreamEventBase {
  type: "resource_change";
  scope: ScopeKind;
  ref: string;
  kind: "single" | "collection";
  /** Collections only: the item's storage key. */
  topic?: string;
  change: "created" | "updated" | "deleted" | "content";
  clientData?: JsonValue;
}

export interface RequestCompletedEvent extends StreamEventBase {
  type: "request.completed";
  output: JsonValue;
}

export interface RequestFailedEvent extends StreamEventBase {
  type: "request.failed";
  error: FlowRequestError;
}

export interface RequestAbortedEvent extends StreamEventBase {
  type: "request.aborted";
}

/** Every event type the runtime itself emits (architecture §3). */
export type KnownStreamEvent =
  | RequestStartedEvent
  | BlockStartedEvent
  | BlockCompletedEvent
  | TextDeltaEvent
  | ToolCallEvent
  | ToolResultEvent
  | StateChangeEvent
  | ResourceChangeEvent
  | RequestCompletedEvent
  | RequestFailedEvent
  | RequestAbortedEvent;

export type KnownStreamEventType = KnownStreamEvent["type"];

/** An event a block emitted itself through `ctx.emit({ type, data })`: its payload fields sit beside the envelope. */
export interface CustomStreamEvent extends StreamEventBase {
  type: string;
  [field: string]: unknown;
}

/**
 * One event of a request's stream. Because blocks may emit their own types, a `switch` on `type` cannot
 * rule out a custom event; use {@link isStreamEvent} to narrow to one known type.
 */
export type FlowStreamEvent = KnownStreamEvent | CustomStreamEvent;

export type TerminalStreamEvent = RequestCompletedEvent | RequestFailedEvent | RequestAbortedEvent;

const TERMINAL_TYPES: ReadonlySet<string> = new Set([
  "request.completed",
  "request.failed",
  "request.aborted",
]);

/** Narrows an event to one of the runtime's own types. */
export function isStreamEvent<T extends KnownStreamEventType>(
  event: FlowStreamEvent,
  type: T,
): event is Extract<KnownStreamEvent, { type: T }> {
  return event.type === type;
}

/** Whether the event ends its request's stream (`request.completed`, `request.failed`, `request.aborted`). */
export function isTerminalEvent(event: FlowStreamEvent): event is TerminalStreamEvent {
  return TERMINAL_TYPES.has(event.type);
}
