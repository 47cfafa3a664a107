import { describe, expect, it } from "vitest";
import { BySessionIndex } from "./by-session-index.js";

const row = (sessionId: string, id: string, createdAt: string) => ({ sessionId, id, createdAt });
const ids = (rows: Iterable<{ id: string }>) => [...rows].map((r) => r.id);

describe("BySessionIndex", () => {
  it("keeps a session's one row, pages it by position, and drops the session with it", () => {
    const index = new BySessionIndex<ReturnType<typeof row>>();
    const a = row("s1", "a", "2026-01-01T00:00:01.000Z");
    index.add(a);
    expect(ids(index.from("s1"))).toEqual(["a"]);
    expect(ids(index.from("s1", { id: "b", createdAt: a.createdAt }))).toEqual(["a"]);
    expect(ids(index.from("s1", a))).toEqual([]);
    expect(ids(index.from("s2"))).toEqual([]);
    index.delete(row("s1", "a", a.createdAt)); // an equal row that is not the one held
    expect(index.has("s1")).toBe(true);
    index.delete(a);
    expect(index.has("s1")).toBe(false);
  });

  it("becomes a sorted index at the second row, newest first, and empties to nothing", () => {
    const index = new BySessionIndex<ReturnType<typeof row>>();
    const a = row("s1", "a", "2026-01-01T00:00:01.000Z");
    const b = row("s1", "b", "2026-01-01T00:00:02.000Z");
    const c = row("s1", "c", "2026-01-01T00:00:00.500Z");
    const other = row("s2", "z", "2026-01-01T00:00:03.000Z");
    for (const r of [a, b, other, c]) index.add(r);
    expect(ids(index.from("s1"))).toEqual(["b", "a", "c"]);
    expect(ids(index.from("s1", b))).toEqual(["a", "c"]);
    expect(ids(index.from("s2"))).toEqual(["z"]);
    for (const r of [b, a, c]) index.delete(r);
    expect(index.has("s1")).toBe(false);
    expect(ids(index.from("s1"))).toEqual([]);
    expect(index.has("s2")).toBe(true);
  });
});
