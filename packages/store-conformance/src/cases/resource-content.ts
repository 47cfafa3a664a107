import { expect } from "vitest";
import { defineCase } from "../case.js";
import { sessionAddress } from "../fixtures.js";

export const resourceContentCases = [
  defineCase(
    "resources/content",
    "content lives in its own row: missing reads null, empty reads an empty string",
    async (stores) => {
      const address = sessionAddress();
      const r = stores.resources;
      expect(await r.getContent(address, "doc")).toBeNull();
      await r.putContent(address, "doc", "");
      expect(await r.getContent(address, "doc")).toBe("");
      const body = "line 1\nline 2 — ünïcödé 😀 end";
      await r.putContent(address, "doc", body);
      expect(await r.getContent(address, "doc")).toBe(body);

      // Content does not create, version or list state.
      expect(await r.getState(address, "doc")).toBeNull();
      expect(await r.count(address)).toBe(0);
      await r.putState(address, "doc", { a: 1 }, { type: "absent" });
      await r.putContent(address, "doc", "second");
      expect(await r.getState(address, "doc")).toMatchObject({ version: 1 });
      expect(await r.getContent(address, "doc")).toBe("second");

      await r.deleteContent(address, "doc");
      expect(await r.getContent(address, "doc")).toBeNull();
      expect(await r.getState(address, "doc")).toMatchObject({ state: { a: 1 }, version: 1 });
      await r.deleteContent(address, "never-written");
      expect(await r.getContent(address, "never-written")).toBeNull();

      // A stray content row (no live state): an unconditional deleteState takes it, one conditioned on absence
      // leaves it (it deletes nothing).
      await r.putContent(address, "stray", "orphan");
      expect(await r.deleteState(address, "stray", { type: "absent" })).toMatchObject({ ok: true });
      expect(await r.getContent(address, "stray")).toBe("orphan");
      expect(await r.deleteState(address, "stray", { type: "any" })).toMatchObject({ ok: true });
      expect(await r.getContent(address, "stray")).toBeNull();
    },
  ),
] as const;
