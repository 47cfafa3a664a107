import { randomUUID } from "node:crypto";
import { readdir } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import type { FlowStores, ScopeAddress } from "@flowrt/core";
import { sessionRecord } from "@flowrt/store-conformance";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createFsStores } from "./create-fs-stores.js";
import { listFiles, unreadableFiles } from "./testing/file-tree.js";
import { makeTempDir, removeTempDir } from "./testing/temp-dir.js";

/** Would land in the OS temp dir (the store's grandparent) if a key were used as a path. */
const MARKER = `escaped-${randomUUID()}`;

/** Keys that break naive path building, or collide under case folding or lossy encodings. */
const HOSTILE = [
  `../../${MARKER}`,
  `../../../../../../../../../../${tmpdir()}/${MARKER}-abs`,
  "..",
  "../..",
  "../../../../../../../../tmp/escaped",
  "/",
  "/etc/passwd",
  "\\",
  "..\\..\\windows",
  "C:\\evil",
  "a/../../b",
  ".",
  "",
  "\0",
  "a\0b",
  "x".repeat(1000),
  "😀/ünïcödé/日本語",
  "Key",
  "key",
  "KEY",
  "CON",
  "nul.txt",
  "trailing. ",
  "\ud800",
  "\udc00",
  "\ufffd",
  "%2e%2e%2f",
  "a\nb",
  "index.log",
  "../index.log",
];

describe("hostile keys and ids", () => {
  let parent: string;
  let dir: string;
  let stores: FlowStores;

  beforeEach(async () => {
    parent = await makeTempDir("flowrt-fs-hostile-");
    dir = path.join(parent, "store");
    // Paths, not durability, are under test here: skip the fsyncs to keep the test fast.
    stores = createFsStores({ dir, retention: false, fsync: false });
  });
  afterEach(async () => {
    await stores.close();
    await removeTempDir(parent);
  });

  it("creates nothing outside dir and never lets two keys collide", async () => {
    const r = stores.resources;
    const addresses: ScopeAddress[] = [
      { scope: "session", scopeId: "s", bucket: "shared" },
      ...HOSTILE.slice(0, 8).map((id): ScopeAddress => ({ scope: "user", scopeId: id, bucket: id })),
    ];
    for (const address of addresses) {
      for (const [i, key] of HOSTILE.entries()) {
        expect(await r.putState(address, key, { i }, { type: "absent" })).toEqual({ ok: true, version: 1 });
        await r.putContent(address, key, `content ${i}`);
      }
    }
    for (const id of HOSTILE.filter((id) => id !== "")) {
      expect(await stores.sessions.create(sessionRecord({ id }))).toBe(true);
      await stores.requests.appendEvent({ requestId: id, type: "t", at: "", data: { id } });
      await stores.scopeState.put({ scope: "org", scopeId: id, bucket: id }, { id }, { type: "absent" });
    }

    // Nothing but the store folder appeared next to it, and nothing escaped into the OS temp dir.
    expect(await readdir(parent)).toEqual(["store"]);
    expect((await readdir(tmpdir())).filter((name) => name.includes(MARKER))).toEqual([]);
    for (const file of await listFiles(dir)) {
      expect(path.relative(dir, file).startsWith("..")).toBe(false);
      // Every name is store-chosen: short, lower-case hex (or a fixed name).
      expect(path.basename(file)).toMatch(/^([0-9a-f]{64}\.jsonl?|index\.log|flowrt-store\.json)$/);
    }

    // Each key reads back its own value: no two keys share a file.
    for (const address of addresses) {
      for (const [i, key] of HOSTILE.entries()) {
        expect(await r.getState(address, key)).toMatchObject({ key, state: { i } });
        expect(await r.getContent(address, key)).toBe(`content ${i}`);
      }
      const page = await r.list(address);
      expect(page.items.map((item) => item.key)).toEqual([...HOSTILE].sort());
      expect(await r.count(address, "..")).toBe(HOSTILE.filter((k) => k.startsWith("..")).length);
    }
    for (const id of HOSTILE.filter((id) => id !== "")) {
      expect(await stores.sessions.get(id)).toMatchObject({ id });
      expect(await stores.requests.readEvents(id)).toMatchObject([{ seq: 1, data: { id } }]);
      expect(await stores.scopeState.get({ scope: "org", scopeId: id, bucket: id })).toEqual({
        value: { id },
        version: 1,
      });
    }
    expect(await unreadableFiles(dir)).toEqual([]);
  });

  it("keys that differ only by case are distinct files (safe on case-insensitive file systems)", async () => {
    const address: ScopeAddress = { scope: "session", scopeId: "s", bucket: "shared" };
    await stores.resources.putState(address, "Readme", { v: "upper" }, { type: "absent" });
    await stores.resources.putState(address, "readme", { v: "lower" }, { type: "absent" });
    const names = (await listFiles(dir))
      .filter((f) => f.includes(`${path.sep}state${path.sep}`))
      .map((f) => path.basename(f));
    expect(new Set(names.map((n) => n.toLowerCase())).size).toBe(2);
    expect(await stores.resources.getState(address, "Readme")).toMatchObject({ state: { v: "upper" } });
    expect(await stores.resources.getState(address, "readme")).toMatchObject({ state: { v: "lower" } });
  });
});
