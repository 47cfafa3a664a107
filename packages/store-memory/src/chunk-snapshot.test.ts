import type { ResourceStateRecord } from "@flowrt/core";
import { describe, expect, it } from "vitest";
import { ChunkSnapshot } from "./chunk-snapshot.js";
import type { Row } from "./row.js";

const rowsOf = (n: number): Row[] =>
  Array.from({ length: n }, (_, i) => ({
    key: `k${String(i).padStart(3, "0")}`,
    state: JSON.stringify({ i }),
    content: null,
    version: 1,
    createdAt: i,
    accessedAt: i,
    chunk: null,
    leafChunk: null,
  }));

function read(snapshot: ChunkSnapshot, rows: Row[], from = 0, to = rows.length): ResourceStateRecord[] {
  const out: ResourceStateRecord[] = [];
  snapshot.read(
    rows.map((r) => r.key),
    rows,
    from,
    to,
    out,
  );
  return out;
}

const update = (snapshot: ChunkSnapshot, rows: Row[], i: number, state: object) => {
  rows[i]!.state = JSON.stringify(state);
  rows[i]!.version += 1;
  snapshot.update(i, rows[i]!);
};

describe("ChunkSnapshot", () => {
  it("lays the states out once and reads any range from the text", () => {
    const rows = rowsOf(40);
    const snapshot = ChunkSnapshot.build(rows);
    expect(snapshot.staleRows).toBe(0);
    expect(snapshot.textLength).toBe(rows.reduce((sum, r) => sum + r.state!.length + 1, -1));
    expect(read(snapshot, rows, 5, 8)).toEqual(
      [5, 6, 7].map((i) => ({ key: rows[i]!.key, state: { i }, version: 1, createdAt: i, accessedAt: i })),
    );
  });

  it("a write marks one row stale and the page reads that row, until stale rows pile up and the text is laid out again", () => {
    const rows = rowsOf(40);
    const snapshot = ChunkSnapshot.build(rows);
    const before = snapshot.textLength;
    update(snapshot, rows, 3, { changed: 3 });
    expect(snapshot.staleRows).toBe(1);
    expect(read(snapshot, rows, 2, 5).map((r) => [r.state, r.version])).toEqual([
      [{ i: 2 }, 1],
      [{ changed: 3 }, 2],
      [{ i: 4 }, 1],
    ]);
    expect(snapshot.textLength).toBe(before); // one stale row of 40: no layout yet
    for (const i of [10, 11, 12, 13, 14]) update(snapshot, rows, i, { changed: i });
    read(snapshot, rows, 0, 1);
    expect(snapshot.staleRows).toBe(0);
    expect(read(snapshot, rows).map((r) => r.state)).toEqual(
      rows.map((_, i) => ([3, 10, 11, 12, 13, 14].includes(i) ? { changed: i } : { i })),
    );
  });

  it("drops dead text left by removed rows and keeps inserted rows in place", () => {
    const rows = rowsOf(40);
    const snapshot = ChunkSnapshot.build(rows);
    update(snapshot, rows, 0, { changed: 0 });
    expect(snapshot.staleRows).toBe(1);
    for (let k = 0; k < 30; k++) {
      snapshot.remove(0);
      rows.shift();
    }
    const inserted: Row = {
      key: "k0300",
      state: '{"new":true}',
      content: null,
      version: 1,
      createdAt: 7,
      accessedAt: 8,
      chunk: null,
      leafChunk: null,
    };
    rows.splice(5, 0, inserted);
    snapshot.insert(5, inserted);
    expect(snapshot.staleRows).toBe(1); // the removed stale row no longer counts; the inserted one does
    snapshot.touch(0, 99);
    const records = read(snapshot, rows);
    expect(snapshot.textLength).toBe(rows.reduce((sum, r) => sum + r.state!.length + 1, -1));
    expect(records.map((r) => r.state)).toEqual(
      [30, 31, 32, 33, 34, "new", 35, 36, 37, 38, 39].map((i) => (i === "new" ? { new: true } : { i })),
    );
    expect(records[0]!.accessedAt).toBe(99);
    expect(records[5]).toMatchObject({ createdAt: 7, accessedAt: 8 });
  });

  it("splits and concatenates in step with its chunk", () => {
    const rows = rowsOf(20);
    const lower = ChunkSnapshot.build(rows);
    update(lower, rows, 15, { changed: 15 });
    const upper = lower.split(10);
    expect([lower.staleRows, upper.staleRows]).toEqual([0, 1]);
    expect(read(upper, rows.slice(10)).map((r) => r.state)).toEqual(
      rows.slice(10).map((_, k) => (k === 5 ? { changed: 15 } : { i: 10 + k })),
    );
    const merged = ChunkSnapshot.concat(lower, upper)!;
    expect(read(merged, rows).map((r) => r.version)).toEqual(rows.map((_, i) => (i === 15 ? 2 : 1)));
  });

  it("keeps no text past its limit, reading every row from the row itself", () => {
    const rows = rowsOf(10);
    const snapshot = ChunkSnapshot.build(rows, 20);
    expect(snapshot.textLength).toBe(0);
    expect(snapshot.staleRows).toBe(10);
    expect(read(snapshot, rows).map((r) => r.state)).toEqual(rows.map((_, i) => ({ i })));
    expect(snapshot.textLength).toBe(0);
    expect(
      ChunkSnapshot.concat(ChunkSnapshot.build(rows.slice(0, 5), 40), ChunkSnapshot.build(rows.slice(5), 40)),
    ).toBeNull();
  });
});
