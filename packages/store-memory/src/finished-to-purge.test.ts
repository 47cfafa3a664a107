import { describe, expect, it } from "vitest";
import { type Finished, finishedToPurge } from "./finished-to-purge.js";

/** The rule written the plain way: sort newest first (then the greater id), drop the tail and the too old. */
function reference(finished: Finished[], maxCount: number, cutoff: number): string[] {
  const newestFirst = [...finished].sort(
    (a, b) => b.finishedMs - a.finishedMs || (a.id > b.id ? -1 : a.id < b.id ? 1 : 0),
  );
  return newestFirst
    .filter((row, i) => i >= maxCount || row.finishedMs < cutoff)
    .map((row) => row.id)
    .sort();
}

const ids = (rows: Finished[]) => rows.map((row) => row.id).sort();

/** A small deterministic generator, so a failure reproduces. */
function random(seed: number) {
  let state = seed;
  return () => {
    state = (state * 1_103_515_245 + 12_345) % 2 ** 31;
    return state / 2 ** 31;
  };
}

describe("finishedToPurge", () => {
  it("keeps the newest maxCount; of requests that finished in the same ms, the greater ids (as fs and Postgres)", () => {
    const rows = [
      { id: "d", finishedMs: 30 },
      { id: "a", finishedMs: 10 },
      { id: "c", finishedMs: 20 },
      { id: "b", finishedMs: 20 },
    ];
    expect(ids(finishedToPurge(rows, 2, Number.NEGATIVE_INFINITY))).toEqual(["a", "b"]);
    expect(ids(finishedToPurge(rows, 3, Number.NEGATIVE_INFINITY))).toEqual(["a"]);
    expect(ids(finishedToPurge(rows, 0, Number.NEGATIVE_INFINITY))).toEqual(["a", "b", "c", "d"]);
    expect(finishedToPurge(rows, 4, Number.NEGATIVE_INFINITY)).toEqual([]);
  });

  it("removes everything finished before the cutoff, within the count or beyond it", () => {
    const rows = [
      { id: "new", finishedMs: 100 },
      { id: "old", finishedMs: 5 },
      { id: "older", finishedMs: 1 },
    ];
    expect(ids(finishedToPurge(rows, Number.POSITIVE_INFINITY, 50))).toEqual(["old", "older"]);
    expect(ids(finishedToPurge(rows, 2, 3))).toEqual(["older"]);
    expect(ids(finishedToPurge(rows, 1, 200))).toEqual(["new", "old", "older"]);
  });

  it("agrees with a full sort on random sets with many equal times", () => {
    const next = random(7);
    for (let round = 0; round < 200; round++) {
      const size = Math.floor(next() * 60);
      const rows = Array.from({ length: size }, (_, i) => ({
        id: `r${Math.floor(next() * 1000)}-${i}`,
        finishedMs: Math.floor(next() * 8),
      }));
      const maxCount = Math.floor(next() * (size + 3));
      const cutoff = next() < 0.5 ? Number.NEGATIVE_INFINITY : Math.floor(next() * 8);
      expect(ids(finishedToPurge(rows, maxCount, cutoff))).toEqual(reference(rows, maxCount, cutoff));
    }
  });
});
