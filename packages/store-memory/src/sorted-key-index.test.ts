import { describe, expect, it } from "vitest";
import { prefixEnd, SortedKeyIndex } from "./sorted-key-index.js";

/** A small deterministic generator, so a failing sequence can be replayed. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const ALPHABET = ["a", "b", "c", "/", "%", "_", "é", "\uFFFF", "\u{1F600}", "\uE000"];

function randomKey(next: () => number): string {
  const length = 1 + Math.floor(next() * 4);
  let key = "";
  for (let i = 0; i < length; i++) key += ALPHABET[Math.floor(next() * ALPHABET.length)];
  return key;
}

describe("SortedKeyIndex", () => {
  it("matches a naive sorted model under random inserts and deletes", () => {
    // Tiny chunks make the random walk split and merge chunks constantly.
    for (const [seed, maxChunk] of [
      [1, 4],
      [2, 8],
      [3, 1024],
    ] as const) {
      const next = random(seed);
      const index = new SortedKeyIndex(maxChunk);
      const model = new Set<string>();
      for (let step = 0; step < 8_000; step++) {
        const key = randomKey(next);
        if (next() < 0.62) expect(index.add(key)).toBe(!model.has(key));
        else expect(index.delete(key)).toBe(model.has(key));
        if (index.has(key)) model.add(key);
        else model.delete(key);

        if (step % 250 === 0) {
          const sorted = [...model].sort();
          expect(index.size).toBe(sorted.length);
          expect([...index]).toEqual(sorted);
          const probe = randomKey(next);
          expect(index.rank(probe)).toBe(sorted.filter((k) => k < probe).length);
          const prefix = randomKey(next).slice(0, 1 + Math.floor(next() * 2));
          const matching = sorted.filter((k) => k.startsWith(prefix));
          const [start, end] = index.prefixRange(prefix);
          expect(end - start).toBe(matching.length);
          expect(index.countPrefix(prefix)).toBe(matching.length);
          const offset = Math.floor(next() * (matching.length + 2));
          const limit = Math.floor(next() * 40);
          expect(index.slice(start + offset, Math.min(limit, end - start - offset))).toEqual(
            matching.slice(offset, offset + limit),
          );
        }
      }
    }
  });

  it("splits and merges chunks without losing order (many keys, then most deleted)", () => {
    const next = random(42);
    const index = new SortedKeyIndex();
    const keys = Array.from({ length: 20_000 }, (_, i) => `k${String(i).padStart(6, "0")}`);
    const shuffled = [...keys].sort(() => next() - 0.5);
    for (const key of shuffled) index.add(key);
    expect(index.size).toBe(keys.length);
    expect(index.slice(9_990, 20)).toEqual(keys.slice(9_990, 10_010));
    expect(index.countPrefix("k0199")).toBe(100);

    const kept = keys.filter((_, i) => i % 97 === 0);
    for (const key of shuffled) if (!kept.includes(key)) expect(index.delete(key)).toBe(true);
    expect([...index]).toEqual(kept);
    expect(index.slice(3, 5)).toEqual(kept.slice(3, 8));
    expect(index.rank(kept[10]!)).toBe(10);
    for (const key of kept) index.delete(key);
    expect(index.size).toBe(0);
    expect(index.slice(0, 10)).toEqual([]);
    expect(index.rank("anything")).toBe(0);
  });

  it("slices past the end and with non-positive counts return nothing", () => {
    const index = new SortedKeyIndex();
    for (const key of ["b", "a", "c"]) index.add(key);
    expect(index.slice(0, 10)).toEqual(["a", "b", "c"]);
    expect(index.slice(3, 1)).toEqual([]);
    expect(index.slice(1, 0)).toEqual([]);
    expect(index.slice(2, -1)).toEqual([]);
  });
});

describe("prefixEnd", () => {
  it("bounds exactly the strings that start with the prefix", () => {
    expect(prefixEnd("")).toBeNull();
    expect(prefixEnd("ab")).toBe("ac");
    expect(prefixEnd("a\uFFFF")).toBe("b");
    expect(prefixEnd("\uFFFF\uFFFF")).toBeNull();
    expect(prefixEnd("a/")).toBe("a0");
  });
});
