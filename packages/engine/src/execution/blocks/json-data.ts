import { FlowError, type JsonValue } from "@flowrt/core";

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

/** What a request stores as JSON and refuses when JSON cannot hold it: its input, or its action's output. */
export type StoredJson = "input" | "output";

const REFUSAL = {
  input: { code: "invalid-input", what: "The request input" },
  output: { code: "invalid-output", what: "The action's output" },
} as const;

function notJson(kind: StoredJson, error: unknown): FlowError {
  const { code, what } = REFUSAL[kind];
  const reason = error instanceof Error ? error.message : String(error);
  return new FlowError(code, `${what} cannot be stored as JSON (${reason}).`);
}

/**
 * The JSON copy a store keeps of a request's input or output (`undefined` is `null`). A value JSON cannot
 * hold (a BigInt, a cycle, nesting deeper than the serializer reaches) is refused: `invalid-input` for an
 * input, `invalid-output` for an output.
 */
export function storedJson(value: unknown, kind: StoredJson): JsonValue {
  if (value === undefined) return null;
  try {
    return JSON.parse(JSON.stringify(value)) as JsonValue;
  } catch (error) {
    throw notJson(kind, error);
  }
}

/** The refusal {@link storedJson} would throw for `value`, without making the copy; `undefined` when JSON holds it. */
export function jsonRefusal(value: unknown, kind: StoredJson): FlowError | undefined {
  try {
    JSON.stringify(value);
    return undefined;
  } catch (error) {
    return notJson(kind, error);
  }
}
