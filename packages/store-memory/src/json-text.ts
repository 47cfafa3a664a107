/**
 * JSON text of a value the request side stores (request inputs, outputs, metadata, event data,
 * sessions). Kept as text, a stored value is a leaf string: it is copied in with one stringify and out
 * with one parse, and the garbage collector never walks it. Values are normalized the way a JSON
 * column would (`undefined` members dropped, `toJSON` applied), as the durable stores do; what JSON
 * cannot hold at all (a cycle, a BigInt, a bare `undefined` or function) is refused with a TypeError.
 */
export function jsonText(value: unknown, what: string): string {
  let text: string | undefined;
  try {
    text = JSON.stringify(value);
  } catch (error) {
    throw new TypeError(
      `store-memory: ${what} is not JSON (${error instanceof Error ? error.message : String(error)}).`,
    );
  }
  if (text === undefined) throw new TypeError(`store-memory: ${what} is not JSON (got ${typeof value}).`);
  return text;
}

export function checkJsonObject(value: unknown, what: string): asserts value is object {
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new TypeError(`store-memory: ${what} must be a JSON object.`);
  }
}

/** A plain JSON object's text (event data, metadata): arrays and primitives are refused. */
export function jsonObjectText(value: unknown, what: string): string {
  checkJsonObject(value, what);
  return jsonText(value, what);
}

export function checkString(value: unknown, what: string): asserts value is string {
  if (typeof value !== "string") throw new TypeError(`store-memory: ${what} must be a string.`);
}

export function checkOptionalString(value: unknown, what: string): asserts value is string | undefined {
  if (value !== undefined && typeof value !== "string") {
    throw new TypeError(`store-memory: ${what} must be a string when given.`);
  }
}
