let lastMs = Number.NaN;
let lastIso = "";

/**
 * `new Date().toISOString()`, made once per millisecond: a busy host stamps several records and events
 * within one millisecond, and formatting the date is the costly part.
 */
export function isoNow(): string {
  const ms = Date.now();
  if (ms !== lastMs) {
    lastMs = ms;
    lastIso = new Date(ms).toISOString();
  }
  return lastIso;
}
