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

  it("compares by time, then id", () => {
    expect(newerThan(row("2", "a"), row("1", "z"))).toBe(true);
    expect(newerThan(row("1", "b"), row("1", "a"))).toBe(true);
    expect(newerThan(row("1", "a"), row("1", "a"))).toBe(false);
  });
});
