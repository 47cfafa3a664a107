/** Reads one named header from a delivery's headers; see {@link headerReader}. */
export type HeaderReader = (headers: unknown) => string | undefined;

function isAscii(text: string): boolean {
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) > 0x7f) return false;
  return true;
}

/**
 * A reader for one header, with the lower-cased name prepared once. It returns the value as a single string,
 * or `undefined` when it is missing, repeated (an array, or two keys of a plain object that differ only in case)
 * or not a string, so that a verifier never has to guess which of two values the provider meant.
 */
export function headerReader(name: string): HeaderReader {
  const wanted = name.toLowerCase();
  // Lower-casing never shortens a string, and for an ASCII name only keys of the same length can lower-case to
  // it (the Kelvin sign, say, lower-cases to "k" in place); the length test skips most keys without a copy.
  const sameLengthOnly = isAscii(wanted);
  const length = wanted.length;
  return (headers) => {
    if (typeof headers !== "object" || headers === null) return undefined;
    const get = (headers as { get?: unknown }).get;
    if (typeof get === "function") {
      // A WHATWG Headers instance joins repeated values with ", "; the formats' own parsers reject that.
      const value: unknown = get.call(headers, wanted);
      return typeof value === "string" ? value : undefined;
    }
    let found: unknown;
    let matches = 0;
    // for…in walks inherited keys too, so matches are kept to own keys, as Object.keys would give them.
    for (const key in headers) {
      if (key !== wanted && ((sameLengthOnly && key.length !== length) || key.toLowerCase() !== wanted))
        continue;
      if (!Object.hasOwn(headers, key)) continue;
      matches += 1;
      found = (headers as Record<string, unknown>)[key];
    }
    return matches === 1 && typeof found === "string" ? found : undefined;
  };
}

/** Reads one header by name; for names known in advance, prefer {@link headerReader}. */
export function readHeader(headers: unknown, name: string): string | undefined {
  return headerReader(name)(headers);
}
