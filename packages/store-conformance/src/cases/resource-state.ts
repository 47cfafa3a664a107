import { expect } from "vitest";
import { defineCase } from "../case.js";
import { sessionAddress, sleep } from "../fixtures.js";

export const resourceStateCases = [
  defineCase(
    "resources/cas",
    "putState is a compare-and-swap; versions start at 1 and grow by 1; conflicts are data",
    async (stores) => {
      const address = sessionAddress();
      const r = stores.resources;
      expect(await r.getState(address, "doc")).toBeNull();
      expect(await r.putState(address, "doc", { n: 0 }, { type: "version", version: 1 })).toEqual({
        ok: false,
        current: null,
      });
      expect(await r.getState(address, "doc")).toBeNull();

      const before = Date.now();
      expect(await r.putState(address, "doc", { n: 1 }, { type: "absent" })).toEqual({
        ok: true,
        version: 1,
      });
      const created = await r.getState(address, "doc");
      expect(created).toMatchObject({ key: "doc", state: { n: 1 }, version: 1 });
      expect(created!.createdAt).toBeGreaterThanOrEqual(before - 1000);
      expect(created!.accessedAt).toBeGreaterThanOrEqual(created!.createdAt);

      expect(await r.putState(address, "doc", { n: 9 }, { type: "absent" })).toEqual({
        ok: false,
        current: { value: { n: 1 }, version: 1 },
      });
      expect(await r.putState(address, "doc", { n: 2 }, { type: "version", version: 1 })).toEqual({
        ok: true,
        version: 2,
      });
      expect(await r.putState(address, "doc", { n: 9 }, { type: "version", version: 1 })).toEqual({
        ok: false,
        current: { value: { n: 2 }, version: 2 },
      });
      expect(await r.putState(address, "doc", { n: 9 }, { type: "version", version: 3 })).toEqual({
        ok: false,
        current: { value: { n: 2 }, version: 2 },
      });
      // Lost writes leave nothing behind: neither the value nor a version bump.
      expect(await r.getState(address, "doc")).toMatchObject({ state: { n: 2 }, version: 2 });
      expect(await r.putState(address, "doc", { n: 3 }, { type: "any" })).toEqual({ ok: true, version: 3 });
      const updated = await r.getState(address, "doc");
      expect(updated).toMatchObject({
        key: "doc",
        state: { n: 3 },
        version: 3,
        createdAt: created!.createdAt,
      });
      expect(await r.putState(address, "fresh", { a: 1 }, { type: "any" })).toEqual({ ok: true, version: 1 });
    },
  ),

  defineCase(
    "resources/tombstone",
    "delete leaves a tombstone: versions are never reused and re-create starts afresh",
    async (stores) => {
      const address = sessionAddress();
      const r = stores.resources;
      await r.putState(address, "k", { v: 1 }, { type: "absent" });
      await r.putState(address, "k", { v: 2 }, { type: "any" });
      const original = await r.getState(address, "k");

      expect(await r.deleteState(address, "k", { type: "version", version: 1 })).toEqual({
        ok: false,
        current: { value: { v: 2 }, version: 2 },
      });
      expect(await r.getState(address, "k")).toMatchObject({ version: 2 });
      expect(await r.deleteState(address, "k", { type: "version", version: 2 })).toEqual({
        ok: true,
        version: 3,
      });
      expect(await r.getState(address, "k")).toBeNull();
      expect(await r.count(address)).toBe(0);
      expect(await r.list(address)).toEqual({ items: [], total: 0 });

      // Absent again: a version condition fails with no current value, "any" is a no-op.
      expect(await r.deleteState(address, "k", { type: "version", version: 3 })).toEqual({
        ok: false,
        current: null,
      });
      expect((await r.deleteState(address, "k", { type: "any" })).ok).toBe(true);
      expect(await r.putState(address, "k", { v: 9 }, { type: "version", version: 3 })).toEqual({
        ok: false,
        current: null,
      });

      await sleep(5);
      expect(await r.putState(address, "k", { v: 3 }, { type: "absent" })).toEqual({ ok: true, version: 4 });
      const recreated = await r.getState(address, "k");
      expect(recreated).toMatchObject({ state: { v: 3 }, version: 4 });
      expect(recreated!.createdAt).toBeGreaterThan(original!.createdAt);

      expect(await r.deleteState(address, "k", { type: "any" })).toEqual({ ok: true, version: 5 });
      expect(await r.putState(address, "k", { v: 4 }, { type: "any" })).toEqual({ ok: true, version: 6 });

      // Deleting a key that never existed is a no-op that leaves no trace.
      expect((await r.deleteState(address, "never", { type: "any" })).ok).toBe(true);
      expect(await r.putState(address, "never", {}, { type: "absent" })).toEqual({ ok: true, version: 1 });
    },
  ),

  defineCase(
    "resources/delete-removes-content",
    "deleteState also removes the key's content row",
    async (stores) => {
      const address = sessionAddress();
      const r = stores.resources;
      await r.putState(address, "file", { size: 3 }, { type: "absent" });
      await r.putContent(address, "file", "abc");
      expect((await r.deleteState(address, "file", { type: "any" })).ok).toBe(true);
      expect(await r.getContent(address, "file")).toBeNull();

      // A refused delete keeps both.
      await r.putState(address, "kept", {}, { type: "absent" });
      await r.putContent(address, "kept", "body");
      expect((await r.deleteState(address, "kept", { type: "version", version: 7 })).ok).toBe(false);
      expect(await r.getContent(address, "kept")).toBe("body");
      expect(await r.getState(address, "kept")).toMatchObject({ version: 1 });
    },
  ),

  defineCase("resources/copies", "resource reads and writes never alias caller objects", async (stores) => {
    const address = sessionAddress();
    const r = stores.resources;
    const state = { tags: ["a"], meta: { x: 1 } };
    await r.putState(address, "k", state, { type: "absent" });
    state.tags.push("mutated");
    state.meta.x = 2;
    const expected = { tags: ["a"], meta: { x: 1 } };

    const read = await r.getState(address, "k");
    expect(read?.state).toEqual(expected);
    (read!.state.tags as string[]).push("b");
    read!.version = 100;
    const page = await r.list(address);
    (page.items[0]!.state.meta as { x: number }).x = 3;
    const conflict = await r.putState(address, "k", {}, { type: "absent" });
    if (!conflict.ok) (conflict.current!.value.tags as string[]).length = 0;

    expect(await r.getState(address, "k")).toMatchObject({ state: expected, version: 1 });
    expect((await r.list(address)).items[0]).toMatchObject({ state: expected, version: 1 });
  }),

  defineCase(
    "resources/touch",
    "touch records an access time without changing the version",
    async (stores) => {
      const address = sessionAddress();
      const r = stores.resources;
      await r.putState(address, "k", { a: 1 }, { type: "absent" });
      const before = await r.getState(address, "k");
      const at = before!.accessedAt + 60_000;
      await r.touch(address, "k", at);
      const after = await r.getState(address, "k");
      expect(after).toEqual({ ...before, accessedAt: at });

      await r.touch(address, "missing", at);
      expect(await r.getState(address, "missing")).toBeNull();
      expect(await r.putState(address, "missing", {}, { type: "absent" })).toEqual({ ok: true, version: 1 });

      const startedAt = Date.now();
      await r.touch(address, "k");
      expect((await r.getState(address, "k"))!.accessedAt).toBeGreaterThanOrEqual(startedAt - 1000);
      expect((await r.getState(address, "k"))!.version).toBe(1);
    },
  ),
] as const;
