const DIGITS = /^\d{1,15}$/;

/** Seconds since the epoch from the literal header text, or `undefined` unless it is plain decimal digits. */
export function parseTimestamp(text: string): number | undefined {
  return DIGITS.test(text) ? Number(text) : undefined;
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
