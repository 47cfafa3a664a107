import { describe, expect, it } from "vitest";
import { SortedKeys } from "./sorted-keys.js";

/** A small deterministic generator, so a failure can be replayed. */
function random(seed: number) {
  return () => {
    seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
    return seed / 2_147_483_648;
  };
}

// Characters chosen to straddle the orders that differ: ASCII, BMP, surrogates, U+FFFF.
const ALPHABET = ["a", "b", "/", "%", "_", "é", "\uE000", "\uFFFF", "\uD83D", "\uDE00", "\u{1F600}"];

describe("SortedKeys", () => {
  it("keeps code-unit order and answers prefix ranges exactly like a filter of a sorted array", () => {
    const next = random(7);
    const word = () =>
      Array.from(
        { length: Math.floor(next() * 4) },
        () => ALPHABET[Math.floor(next() * ALPHABET.length)],
      ).join("");
    const keys = new SortedKeys();
    const model = new Set<string>();
    for (let step = 0; step < 3000; step++) {
      const key = word();
      if (next() < 0.7) {
        keys.add(key);
        model.add(key);
      } else {
        keys.delete(key);
        model.delete(key);
      }
      if (step % 100 === 0) {
        const sorted = [...model].sort();
        expect(keys.all()).toEqual(sorted);
        expect(keys.size).toBe(sorted.length);
        for (let p = 0; p < 20; p++) {
          const prefix = word();
          const [start, end] = keys.range(prefix);
          expect(keys.slice(start, end)).toEqual(sorted.filter((k) => k.startsWith(prefix)));
        }
        expect(keys.has(key)).toBe(model.has(key));
      }
    }
  });
});
