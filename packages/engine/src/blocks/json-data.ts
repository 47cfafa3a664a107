import type { JsonValue } from "@flowrt/core";

/**
 * A JSON copy of a tool input or output for a stream event: what `JSON.stringify` would send (so `toJSON`
 * applies and functions or `undefined` members drop). A value JSON cannot hold (a cycle, a bigint) becomes
 * a short description rather than failing the run over an event payload.
 */
export function toJsonData(value: unknown): JsonValue {
  if (value === undefined) return null;
  try {
    const text = JSON.stringify(value);
    return text === undefined ? null : (JSON.parse(text) as JsonValue);
  } catch {
    return `[unserializable ${typeof value}]`;
  }
}
