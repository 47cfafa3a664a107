import { FlowError, type JsonObject } from "@flowrt/core";
import { isEngineEventType } from "../requests/event-types.js";
import { isPlainObject } from "../state/json.js";
import { jsonRefusal } from "./blocks/json-data.js";

/** What `ctx.emit` takes: `{ type, data? }`, or the payload's fields beside `type`. */
export type EmittedEvent = { type: string; data?: JsonObject } | ({ type: string } & JsonObject);

/** Whether `text` holds a C0 control character or DEL (a line break among them). */
function hasControlCharacter(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 0x20 || code === 0x7f) return true;
  }
  return false;
}

/** A plain object (not an array, not a class instance) that JSON can hold. */
function isJsonObject(value: unknown): boolean {
  return isPlainObject(value) && jsonRefusal(value, "input") === undefined;
}

/**
 * The type and payload of an event of the application's own (`ctx.emit`), or the refusal that appends nothing: a
 * type the engine writes itself (`request.*`, `block.*`, `text.delta`, …) is `reserved-event-type`; a malformed
 * event is `invalid-request`.
 */
export function checkEmittedEvent(event: EmittedEvent): { type: string; data: JsonObject } | FlowError {
  if (typeof event !== "object" || event === null || Array.isArray(event)) {
    return new FlowError(
      "invalid-request",
      "ctx.emit takes an event object: { type, data? }. Nothing was appended.",
    );
  }
  const {
    type,
    data: given,
    ...fields
  } = event as { type: unknown; data?: unknown } & Record<string, unknown>;
  // A line break in the type would end the stream's `event:` line and let the rest pose as fields of its own.
  if (typeof type !== "string" || type === "" || hasControlCharacter(type)) {
    return new FlowError(
      "invalid-request",
      "ctx.emit needs an event type: a non-empty string without control characters (no line breaks). Nothing was appended.",
    );
  }
  // The payload is `data`, or the event's other fields (`{ type, pct }`), never both.
  const hasFields = Object.keys(fields).length > 0;
  if (given !== undefined && hasFields) {
    return new FlowError(
      "invalid-request",
      `ctx.emit of "${type}": give the payload as data or as fields beside type (${Object.keys(fields).join(", ")}), not both. Nothing was appended.`,
    );
  }
  const data = given !== undefined ? given : hasFields ? fields : undefined;
  if (data !== undefined && !isJsonObject(data)) {
    return new FlowError(
      "invalid-request",
      `ctx.emit of "${type}": data must be a JSON object (a plain object JSON can hold: no BigInt, no cycle). Nothing was appended.`,
    );
  }
  if (isEngineEventType(type)) {
    return new FlowError(
      "reserved-event-type",
      `ctx.emit refused "${type}": the engine writes request.*, block.*, text.delta, tool.call, tool.result, state_change and resource_change itself; give the event a type of your own (e.g. "progress"). Nothing was appended.`,
      { details: { type } },
    );
  }
  return { type, data: (data as JsonObject | undefined) ?? {} };
}
