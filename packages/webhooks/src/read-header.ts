/**
 * Reads one header as a single string. Returns `undefined` when it is missing, repeated (an array, or two keys
 * of a plain object that differ only in case) or not a string, so that a verifier never has to guess which of
 * two values the provider meant.
 */
export function readHeader(headers: unknown, name: string): string | undefined {
  if (typeof headers !== "object" || headers === null) return undefined;
  const wanted = name.toLowerCase();
  const get = (headers as { get?: unknown }).get;
  if (typeof get === "function") {
    // A WHATWG Headers instance joins repeated values with ", "; the formats' own parsers reject that.
    const value: unknown = get.call(headers, wanted);
    return typeof value === "string" ? value : undefined;
  }
  let found: unknown;
  let matches = 0;
  for (const key of Object.keys(headers)) {
    if (key.toLowerCase() !== wanted) continue;
    matches += 1;
    found = (headers as Record<string, unknown>)[key];
  }
  return matches === 1 && typeof found === "string" ? found : undefined;
}
