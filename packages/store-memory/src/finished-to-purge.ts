/** What retention reads of a finished request. */
export interface Finished {
  readonly id: string;
  /** ms since epoch it finished at (`completedAt`, else `createdAt`). */
  readonly finishedMs: number;
}

/**
 * The finished requests a retention policy removes: every one beyond the newest `maxCount` (newest
 * by `finishedMs`, then the greater id, as the fs and Postgres stores rank them) and every one that
 * finished before `cutoff`.
 *
 * Rather than sorting every finished request with a comparator, it sorts their times as numbers to
 * find the time of the `maxCount`-th newest; only requests that finished in that same millisecond are
 * ordered by id. At tens of thousands of finished requests that is several times cheaper.
 */
export function finishedToPurge<T extends Finished>(
  finished: readonly T[],
  maxCount: number,
  cutoff: number,
): T[] {
  const purged: T[] = [];
  const n = finished.length;
  if (n <= maxCount) {
    for (const row of finished) if (row.finishedMs < cutoff) purged.push(row);
    return purged;
  }
  if (maxCount === 0) return finished.slice();

  const times = new Float64Array(n);
  for (let i = 0; i < n; i++) times[i] = finished[i]!.finishedMs;
  times.sort();
  // The maxCount-th newest time: those after it are all kept, those before it all go.
  const threshold = times[n - maxCount]!;
  let firstAfter = n;
  while (firstAfter > 0 && times[firstAfter - 1]! > threshold) firstAfter--;
  const tiedKept = maxCount - (n - firstAfter);

  const tied: T[] = [];
  for (const row of finished) if (row.finishedMs === threshold) tied.push(row);
  tied.sort((a, b) => (a.id > b.id ? -1 : a.id < b.id ? 1 : 0));
  const keptTies = new Set<T>(tied.slice(0, tiedKept));

  for (const row of finished) {
    const kept =
      row.finishedMs >= cutoff &&
      (row.finishedMs > threshold || (row.finishedMs === threshold && keptTies.has(row)));
    if (!kept) purged.push(row);
  }
  return purged;
}
