/**
 * Resource keys are stored as their UTF-16 code units, big-endian, in a `bytea` column. PostgreSQL
 * compares `bytea` byte by byte, which on this encoding is exactly JavaScript's UTF-16 code unit
 * order (the contract's key order). Text under `COLLATE "C"` would order by code point instead and
 * put characters above U+FFFF after U+E000–U+FFFF, where JavaScript puts them before. The encoding
 * also keeps every JavaScript string intact, NUL and lone surrogates included.
 */

export function encodeKey(key: string): Buffer {
  return Buffer.from(key, "utf16le").swap16();
}

export function decodeKey(bytes: Uint8Array): string {
  // Copy first: swap16 works in place and the driver may hand out a shared buffer.
  return Buffer.from(bytes).swap16().toString("utf16le");
}

/**
 * The key range `[low, high)` that holds exactly the keys starting with `prefix`; `high` is null
 * when the range is unbounded above (an empty prefix, or one of only U+FFFF characters).
 */
export function prefixRange(prefix: string): { low: Buffer; high: Buffer | null } {
  const low = encodeKey(prefix);
  const high = Buffer.from(low);
  for (let end = high.length; end > 0; end--) {
    const last = high[end - 1] as number;
    if (last < 0xff) {
      high[end - 1] = last + 1;
      return { low, high: high.subarray(0, end) };
    }
  }
  return { low, high: null };
}

/** Whether `count(prefix)` can read a maintained counter: counters exist for "" and every prefix ending in "/". */
export function isCountedPrefix(prefix: string): boolean {
  return prefix === "" || prefix.endsWith("/");
}

/** How many `/` a key holds: the depth the leaf index files it under (as `flowrt_key_depth` computes). */
export function keyDepth(key: string): number {
  let depth = 0;
  for (let at = key.indexOf("/"); at !== -1; at = key.indexOf("/", at + 1)) depth++;
  return depth;
}
