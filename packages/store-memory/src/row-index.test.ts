import type { ResourceStateRecord } from "@flowrt/core";
import { describe, expect, it } from "vitest";
import type { Row } from "./row.js";
import { prefixEnd, RowIndex } from "./row-index.js";

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

const row = (key: string, state: object, at: number): Row => ({
  key,
  state: JSON.stringify(state),
  content: null,
  version: 1,
  createdAt: at,
  accessedAt: at,
  chunk: null,
  leafChunk: null,
});

const record = (r: Row): ResourceStateRecord => ({
  key: r.key,
  state: JSON.parse(r.state!),
  version: r.version,
  createdAt: r.createdAt,
  accessedAt: r.accessedAt,
});

describe("RowIndex", () => {
  it("pages, ranks and counts match a naive sorted model under random inserts, deletes, updates and touches", () => {
    // Tiny chunks split and merge constantly; pages between writes keep snapshots alive through every
    // kind of change, and a tiny text cap sends some chunks down the path that reads rows directly.
    for (const [seed, maxChunk, maxChars] of [
      [1, 4, 1 << 24],
      [2, 8, 1 << 24],
      [3, 16, 60],
      [4, 256, 1 << 24],
    ] as const) {
      const next = random(seed);
      const index = new RowIndex(maxChunk, maxChars);
      const model = new Map<string, Row>();
      for (let step = 0; step < 6_000; step++) {
        const key = randomKey(next);
        const existing = model.get(key);
        const dice = next();
        if (!existing && dice < 0.6) {
          const created = row(key, { step, pad: "x".repeat(Math.floor(next() * 30)) }, step);
          index.add(created);
          model.set(key, created);
        } else if (existing && dice < 0.3) {
          index.delete(existing);
          expect(existing.chunk).toBeNull();
          model.delete(key);
        } else if (existing && dice < 0.75) {
          existing.state = JSON.stringify({ step, updated: true });
          existing.version += 1;
          existing.accessedAt = step;
          index.changed(existing);
        } else if (existing) {
          existing.accessedAt = step + 0.5;
          index.touched(existing);
        }

        if (step % 7 === 0) {
          const sorted = [...model.keys()].sort();
          const prefix = randomKey(next).slice(0, 1 + Math.floor(next() * 2));
          const matching = sorted.filter((k) => k.startsWith(prefix));
          const [start, end] = index.prefixRange(prefix);
          expect(end - start).toBe(matching.length);
          const offset = Math.floor(next() * (matching.length + 2));
          const limit = Math.floor(next() * 40);
          const page = index.records(start + offset, Math.min(limit, end - start - offset));
          expect(page).toEqual(matching.slice(offset, offset + limit).map((k) => record(model.get(k)!)));
        }
        if (step % 500 === 0) {
          const sorted = [...model.keys()].sort();
          expect(index.size).toBe(sorted.length);
          expect([...index].map((r) => r.key)).toEqual(sorted);
          expect(index.records(0, sorted.length + 5)).toEqual(sorted.map((k) => record(model.get(k)!)));
          const probe = randomKey(next);
          expect(index.rank(probe)).toBe(sorted.filter((k) => k < probe).length);
          expect(index.countPrefix(probe.slice(0, 1))).toBe(
            sorted.filter((k) => k.startsWith(probe[0]!)).length,
          );
        }
      }
    }
  }, 30_000);

  it("splits and merges chunks without losing order or values (many keys, then most deleted)", () => {
    const next = random(42);
    const index = new RowIndex();
    const keys = Array.from({ length: 20_000 }, (_, i) => `k${String(i).padStart(6, "0")}`);
    const rows = new Map(keys.map((k, i) => [k, row(k, { i }, i)]));
    const shuffled = [...keys].sort(() => next() - 0.5);
    for (const [n, key] of shuffled.entries()) {
      index.add(rows.get(key)!);
      if (n % 1000 === 0) index.records(Math.floor(next() * index.size), 50);
    }
    expect(index.size).toBe(keys.length);
    expect(index.records(9_990, 20).map((r) => r.state)).toEqual(
      keys.slice(9_990, 10_010).map((_, i) => ({ i: 9_990 + i })),
    );
    expect(index.countPrefix("k0199")).toBe(100);

    const kept = keys.filter((_, i) => i % 97 === 0);
    const keptSet = new Set(kept);
    for (const [n, key] of shuffled.entries()) {
      if (!keptSet.has(key)) index.delete(rows.get(key)!);
      if (n % 1000 === 0) index.records(0, 30);
    }
    expect([...index].map((r) => r.key)).toEqual(kept);
    expect(index.records(3, 5).map((r) => r.key)).toEqual(kept.slice(3, 8));
    expect(index.rank(kept[10]!)).toBe(10);
    for (const key of kept) index.delete(rows.get(key)!);
    expect(index.size).toBe(0);
    expect(index.records(0, 10)).toEqual([]);
    expect(index.rank("anything")).toBe(0);
  });

  it("reads states too long to join from the rows themselves", () => {
    const index = new RowIndex(8, 100);
    const big = row("b", { text: "y".repeat(200) }, 1);
    for (const r of [row("a", { n: 1 }, 1), big, row("c", { n: 3 }, 1)]) index.add(r);
    expect(index.records(0, 3).map((r) => r.key)).toEqual(["a", "b", "c"]);
    expect(index.records(1, 1)[0]!.state).toEqual({ text: "y".repeat(200) });
    big.state = JSON.stringify({ n: 2 });
    big.version = 2;
    index.changed(big);
    expect(index.records(0, 3).map((r) => [r.state, r.version])).toEqual([
      [{ n: 1 }, 1],
      [{ n: 2 }, 2],
      [{ n: 3 }, 1],
    ]);
  });

  it("refuses a key it already holds and a row it does not hold", () => {
    const index = new RowIndex();
    index.add(row("a", {}, 0));
    expect(() => index.add(row("a", {}, 0))).toThrow(/already holds "a"/);
    expect(() => index.delete(row("a", {}, 0))).toThrow(/lacks "a"/);
    expect(() => index.delete(row("z", {}, 0))).toThrow(/lacks "z"/);
    expect(index.size).toBe(1);
  });

  it("reads past the end and with non-positive counts return nothing", () => {
    const index = new RowIndex();
    for (const key of ["b", "a", "c"]) index.add(row(key, { key }, 0));
    expect(index.records(0, 10).map((r) => r.key)).toEqual(["a", "b", "c"]);
    expect(index.records(3, 1)).toEqual([]);
    expect(index.records(1, 0)).toEqual([]);
    expect(index.records(2, -1)).toEqual([]);
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
