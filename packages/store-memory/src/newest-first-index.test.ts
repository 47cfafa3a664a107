import { describe, expect, it } from "vitest";
import { NewestFirstIndex, newerThan } from "./newest-first-index.js";

const row = (createdAt: string, id: string) => ({ createdAt, id });

describe("NewestFirstIndex", () => {
  it("keeps rows newest first, ties by the greater id, whatever order they arrive in", () => {
    const index = new NewestFirstIndex<ReturnType<typeof row>>();
    const rows = [row("2", "a"), row("1", "z"), row("3", "b"), row("2", "c"), row("2", "b")];
    for (const r of rows) index.add(r);
    expect([...index.from()].map((r) => `${r.createdAt}${r.id}`)).toEqual(["3b", "2c", "2b", "2a", "1z"]);
    expect(index.size).toBe(5);
  });

  it("starts strictly after a position, present in the index or not", () => {
    const index = new NewestFirstIndex<ReturnType<typeof row>>();
    for (const r of [row("3", "b"), row("2", "c"), row("2", "a"), row("1", "z")]) index.add(r);
    const ids = (after: { createdAt: string; id: string }) => [...index.from(after)].map((r) => r.id);
    expect(ids(row("2", "c"))).toEqual(["a", "z"]);
    expect(ids(row("2", "b"))).toEqual(["a", "z"]);
    expect(ids(row("9", "x"))).toEqual(["b", "c", "a", "z"]);
    expect(ids(row("1", "z"))).toEqual([]);
    expect(ids(row("0", "a"))).toEqual([]);
  });

  it("deletes by identity and ignores a row it does not hold", () => {
    const index = new NewestFirstIndex<ReturnType<typeof row>>();
    const a = row("1", "a");
    const b = row("1", "b");
    index.add(a);
    index.add(b);
    index.delete(row("1", "a"));
    expect(index.size).toBe(2);
    index.delete(a);
    expect([...index.from()]).toEqual([b]);
    index.delete(a);
    expect(index.size).toBe(1);
  });

  it("stays in order through random inserts and removals (compactions included), against a sorted reference", () => {
    let seed = 7;
    const random = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed % n;
    };
    const index = new NewestFirstIndex<ReturnType<typeof row>>();
    let held: ReturnType<typeof row>[] = [];
    for (let step = 0; step < 5000; step++) {
      if (held.length > 0 && random(3) === 0) {
        const gone = held.splice(random(held.length), 1)[0]!;
        index.delete(gone);
        index.delete(gone); // a second removal changes nothing
      } else {
        // Mostly newer than all (as rows are made), sometimes anywhere, with ties on the time.
        const time = random(4) === 0 ? random(step + 1) : step;
        const r = row(String(time).padStart(5, "0"), String.fromCharCode(97 + random(26)) + step);
        index.add(r);
        held.push(r);
      }
      if (step % 500 === 0 || step === 4999) {
        const expected = [...held].sort((a, b) => (newerThan(a, b) ? -1 : newerThan(b, a) ? 1 : 0));
        expect([...index.from()]).toEqual(expected);
        expect(index.size).toBe(held.length);
        const middle = expected[Math.floor(expected.length / 2)];
        if (middle) expect([...index.from(middle)]).toEqual(expected.slice(expected.indexOf(middle) + 1));
      }
    }
    // Everything removed, then a row removed and added back before any compaction: it is listed once.
    for (const r of held) index.delete(r);
    held = [];
    expect(index.size).toBe(0);
    const back = row("99999", "z");
    index.add(back);
    index.delete(back);
    index.add(back);
    expect([...index.from()]).toEqual([back]);
  });

  it("stays in order when the oldest rows go first (retention), with removals and re-adds between", () => {
    let seed = 11;
    const random = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed % n;
    };
    const index = new NewestFirstIndex<ReturnType<typeof row>>();
    const sorted = (list: ReturnType<typeof row>[]) =>
      [...list].sort((a, b) => (newerThan(a, b) ? -1 : newerThan(b, a) ? 1 : 0));
    let held: ReturnType<typeof row>[] = [];
    const gone: ReturnType<typeof row>[] = [];
    for (let step = 0; step < 6000; step++) {
      const choice = random(10);
      if (held.length > 0 && choice < 4) {
        // The oldest row, as retention removes them.
        const oldest = sorted(held).at(-1)!;
        held = held.filter((r) => r !== oldest);
        index.delete(oldest);
        index.delete(oldest);
        gone.push(oldest);
      } else if (held.length > 0 && choice === 4) {
        const r = held.splice(random(held.length), 1)[0]!;
        index.delete(r);
        gone.push(r);
      } else if (gone.length > 0 && choice === 5) {
        // A removed row comes back (its position unchanged).
        const back = gone.splice(random(gone.length), 1)[0]!;
        index.add(back);
        held.push(back);
      } else {
        const time = random(5) === 0 ? random(step + 1) : step;
        const r = row(String(time).padStart(5, "0"), String.fromCharCode(97 + random(26)) + step);
        index.add(r);
        held.push(r);
      }
      if (step % 250 === 0 || step === 5999) {
        const expected = sorted(held);
        expect([...index.from()]).toEqual(expected);
        expect(index.size).toBe(held.length);
        const middle = expected[Math.floor(expected.length / 2)];
        if (middle) expect([...index.from(middle)]).toEqual(expected.slice(expected.indexOf(middle) + 1));
      }
    }
    for (const r of sorted(held).reverse()) index.delete(r);
    expect(index.size).toBe(0);
    expect([...index.from()]).toEqual([]);
  });

  it("compares by time, then id", () => {
    expect(newerThan(row("2", "a"), row("1", "z"))).toBe(true);
    expect(newerThan(row("1", "b"), row("1", "a"))).toBe(true);
    expect(newerThan(row("1", "a"), row("1", "a"))).toBe(false);
  });
});
