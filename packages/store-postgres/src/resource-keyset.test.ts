/** `resources.list`/`listText` with `after` (keyset on the stored key order), with prefix, leaf and offset. */
import type { ScopeAddress } from "@flowrt/core";
import { afterAll, afterEach, beforeEach, describe, expect, it } from "vitest";
import { backends, closeSharedPglite, createTestStoresOn, type TestStores } from "./testing/databases.js";

afterAll(() => closeSharedPglite());

const at: ScopeAddress = { scope: "session", scopeId: "s1", bucket: "shared" };

// UTF-16 code unit order: "\ud83d\ude00" (😀) sorts before "\ue000", though its code point is greater.
const KEYS = [
  "items/a",
  "items/a/b",
  "items/ab",
  "items/b",
  "items/b/c/d",
  "items/\ud83d\ude00",
  "items/\ue000",
  "items/",
  "other/x",
  "top",
];

describe.each(backends)("resource keyset pages (%s)", (on) => {
  let db: TestStores;
  beforeEach(async () => {
    db = await createTestStoresOn(on);
    for (const key of KEYS) await db.stores.resources.putState(at, key, { key }, { type: "absent" });
    await db.stores.resources.putState(at, "items/aa", {}, { type: "absent" });
    await db.stores.resources.deleteState(at, "items/aa", { type: "any" }); // a tombstone, never listed
  });
  afterEach(() => db.destroy());

  const sorted = (keys: string[]) => [...keys].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const keysOf = async (options: Parameters<TestStores["stores"]["resources"]["list"]>[1]) => {
    const page = await db.stores.resources.list(at, options);
    return { keys: page.items.map((item) => item.key), total: page.total };
  };

  it("pages by key cover every key under the prefix once, in UTF-16 order, total unchanged", async () => {
    const expected = sorted(KEYS.filter((k) => k.startsWith("items/")));
    const seen: string[] = [];
    let after: string | undefined;
    for (;;) {
      const page = await keysOf({ prefix: "items/", limit: 3, ...(after === undefined ? {} : { after }) });
      expect(page.total).toBe(expected.length);
      seen.push(...page.keys);
      if (page.keys.length < 3) break;
      after = page.keys.at(-1);
    }
    expect(seen).toEqual(expected);
  });

  it("after a key that is stored excludes it; one that is not starts at the next key; offset counts from there", async () => {
    expect(await keysOf({ prefix: "items/", after: "items/a", limit: 2 })).toEqual({
      keys: ["items/a/b", "items/ab"],
      total: 8,
    });
    expect(await keysOf({ prefix: "items/", after: "items/a0", limit: 2 })).toEqual({
      keys: ["items/ab", "items/b"],
      total: 8,
    });
    expect(await keysOf({ prefix: "items/", after: "items/a", offset: 2, limit: 2 })).toEqual({
      keys: ["items/b", "items/b/c/d"],
      total: 8,
    });
    // A position before the prefix's range is no narrowing; one beyond it leaves nothing.
    expect((await keysOf({ prefix: "items/", after: "a", limit: 1 })).keys).toEqual(["items/"]);
    expect(await keysOf({ prefix: "items/", after: "items0" })).toEqual({ keys: [], total: 8 });
    expect(await keysOf({ prefix: "items/", after: "\uffff" })).toEqual({ keys: [], total: 8 });
    // The prefix itself as position: everything under it but the key equal to it.
    expect((await keysOf({ prefix: "items/", after: "items/" })).keys).toEqual(
      sorted(KEYS.filter((k) => k.startsWith("items/") && k !== "items/")),
    );
    expect((await keysOf({ after: "other/x" })).keys).toEqual(["top"]);
    expect((await keysOf({ prefix: "items/", after: "items/\ud83d" })).keys).toEqual([
      "items/\ud83d\ude00",
      "items/\ue000",
    ]);
  });

  it("with leaf: only the prefix's level, from after the position, at any depth of the list", async () => {
    expect(await keysOf({ prefix: "items/", leaf: true, after: "items/a", limit: 2 })).toEqual({
      keys: ["items/ab", "items/b"],
      total: 6,
    });
    expect(await keysOf({ prefix: "items/", leaf: true, after: "items/a/b/zzz" })).toEqual({
      keys: ["items/ab", "items/b", "items/\ud83d\ude00", "items/\ue000"],
      total: 6,
    });
    expect(await keysOf({ prefix: "items/a", leaf: true, after: "items/a" })).toEqual({
      keys: ["items/ab"],
      total: 2,
    });
    expect(await keysOf({ prefix: "", leaf: true, after: "" })).toEqual({ keys: ["top"], total: 1 });
    expect(await keysOf({ prefix: "", leaf: true, after: "top" })).toEqual({ keys: [], total: 1 });
  });

  it("listText pages the same keys with each state as its stored JSON text; getStateText reads one", async () => {
    const text = await db.stores.resources.listText?.(at, {
      prefix: "items/",
      leaf: true,
      after: "items/a",
      limit: 2,
    });
    expect(text?.total).toBe(6);
    expect(text?.items.map((item) => [item.key, item.stateText])).toEqual([
      ["items/ab", JSON.stringify({ key: "items/ab" })],
      ["items/b", JSON.stringify({ key: "items/b" })],
    ]);
    const one = await db.stores.resources.getStateText?.(at, "items/\ue000");
    const parsed = await db.stores.resources.getState(at, "items/\ue000");
    expect(one).toEqual({
      key: "items/\ue000",
      stateText: '{"key":"items/\ue000"}',
      version: 1,
      createdAt: parsed?.createdAt,
      accessedAt: parsed?.accessedAt,
    });
    expect(await db.stores.resources.getStateText?.(at, "items/aa")).toBeNull();
  });

  it("refuses a position that is not a string", async () => {
    await expect(db.stores.resources.list(at, { after: 5 as never })).rejects.toMatchObject({
      code: "invalid-request",
    });
  });
});
