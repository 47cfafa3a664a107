/** At most 15 digits, so that every accepted timestamp is an exact safe integer. */
const MAX_DIGITS = 15;

/** Seconds since the epoch from the literal header text, or `undefined` unless it is 1–15 plain decimal digits. */
export function parseTimestamp(text: string): number | undefined {
  const length = text.length;
  if (length === 0 || length > MAX_DIGITS) return undefined;
  let seconds = 0;
  for (let i = 0; i < length; i++) {
    const digit = text.charCodeAt(i) - 48; // "0"
    if (digit < 0 || digit > 9) return undefined;
    seconds = seconds * 10 + digit;
  }
  return seconds;
}

/**
 * Whether a signed timestamp lies within `toleranceSeconds` of the clock, in either direction: a timestamp too
 * far in the future is as suspect as a stale one (a pre-signed delivery would otherwise outlive the window).
 */
export function isFresh(timestampSeconds: number, toleranceSeconds: number, now: () => number): boolean {
  const nowMs = now();
  if (typeof nowMs !== "number" || !Number.isFinite(nowMs)) return false;
  return Math.abs(Math.floor(nowMs / 1000) - timestampSeconds) <= toleranceSeconds;
}

/** Validates a `toleranceSeconds` option at construction. */
export function checkTolerance(value: unknown, owner: string): number {
  if (typeof value !== "number" || Number.isNaN(value) || value < 0) {
    throw new TypeError(`${owner}: toleranceSeconds must be a number >= 0 (Infinity disables the check).`);
  }
  return value;
}

/** Validates a `now` option at construction; the current `Date.now`, read at each call, when it is not given. */
export function checkClock(value: unknown, owner: string): () => number {
  // Looked up at each call, not kept: a clock faked after construction (fake timers) is the one read.
  if (value === undefined || value === null) return () => Date.now();
  if (typeof value !== "function")
    throw new TypeError(`${owner}: now must be a function returning milliseconds.`);
  return value as () => number;
}
