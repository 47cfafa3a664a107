import { access, mkdir, readdir, writeFile } from "node:fs/promises";
import path from "node:path";
import type { FlowStores, RequestEvent, ScopeAddress } from "@flowrt/core";
import { DEFAULT_RETENTION, isFlowError } from "@flowrt/core";
import { requestRecord, sessionAddress, sessionRecord } from "@flowrt/store-conformance";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createFsStores, DEFAULT_FS_RETENTION } from "./index.js";
import { listFiles } from "./testing/file-tree.js";
import { makeTempDir, removeTempDir } from "./testing/temp-dir.js";

const address: ScopeAddress = { scope: "session", scopeId: "s1", bucket: "shared" };

async function codeOf(promise: Promise<unknown>): Promise<string | undefined> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  return isFlowError(error) ? error.code : `not a flow error: ${String(error)}`;
}

describe("createFsStores", () => {
  let parent: string;
  let dir: string;
  const open: FlowStores[] = [];
  const openStores = (options: Partial<Parameters<typeof createFsStores>[0]> = {}) => {
    const stores = createFsStores({ dir, retention: false, ...options });
    open.push(stores);
    return stores;
  };

  beforeEach(async () => {
    parent = await makeTempDir();
    dir = path.join(parent, "store");
  });
  afterEach(async () => {
    for (const stores of open.splice(0)) await stores.close();
    await removeTempDir(parent);
  });

  it("reports itself as a single-process fs store", () => {
    const stores = openStores();
    expect(stores.kind).toBe("fs");
    expect(stores.crossProcess).toBe(false);
  });

  it("a store closed right after it was made has finished creating its folder when close() resolves", async () => {
    const stores = createFsStores({ dir, retention: false });
    await stores.close();
    expect(await listFiles(dir)).toEqual([path.join(dir, "flowrt-store.json")]);
    expect(await readdir(dir)).toEqual(expect.arrayContaining(["flowrt-store.json", "tmp"]));
  });

  it("refuses bad options with a definition error and creates no folder", async () => {
    for (const options of [
      {},
      { dir: "" },
      { dir: 42 },
      { dir, fsync: "yes" },
      { dir, retention: { maxCount: -1 } },
      { dir, retention: { maxAgeMs: 1.5 } },
      { dir, retention: { intervalMs: 0 } },
    ]) {
      let error: unknown;
      try {
        createFsStores(options as never);
      } catch (e) {
        error = e;
      }
      expect(isFlowError(error) && error.code, JSON.stringify(options)).toBe("definition-error");
    }
    expect(await readdir(parent)).toEqual([]);
  });

  it("its retention defaults are the one default, which the host applies", () => {
    expect(DEFAULT_FS_RETENTION).toBe(DEFAULT_RETENTION);
  });

  it("refuses bad input with a clear error and writes nothing", async () => {
    const stores = openStores();
    const r = stores.resources;
    expect(await codeOf(r.putState(address, "k", [] as never, { type: "any" }))).toBe("invalid-request");
    expect(await codeOf(r.putState(address, "k", {}, { type: "sometimes" } as never))).toBe(
      "invalid-request",
    );
    expect(await codeOf(r.putState(address, 7 as never, {}, { type: "any" }))).toBe("invalid-request");
    expect(await codeOf(r.putState({ ...address, scope: "team" } as never, "k", {}, { type: "any" }))).toBe(
      "invalid-request",
    );
    expect(await codeOf(r.putContent(address, "k", { body: 1 } as never))).toBe("invalid-request");
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(await codeOf(r.putState(address, "k", cyclic as never, { type: "any" }))).toBe("invalid-request");
    expect(await codeOf(r.putState(address, "k", { n: 1n } as never, { type: "any" }))).toBe(
      "invalid-request",
    );
    expect(await codeOf(r.list(address, { limit: -1 }))).toBe("invalid-pagination");
    expect(await codeOf(r.list(address, { offset: 0.5 }))).toBe("invalid-pagination");
    expect(await codeOf(stores.sessions.create({ id: "" } as never))).toBe("invalid-request");
    expect(
      await codeOf(stores.requests.appendEvent({ requestId: "r", type: "t", at: "", data: null } as never)),
    ).toBe("invalid-request");
    expect(await codeOf(stores.requests.purgeFinished({ maxAgeMs: -1 }))).toBe("invalid-request");
    expect(await codeOf(stores.requests.purgeFinished({ maxCount: 1.5 }))).toBe("invalid-request");
    expect(await codeOf(stores.requests.update("r", -1, {}))).toBe("invalid-request");

    expect(await r.getState(address, "k")).toBeNull();
    expect(await r.getContent(address, "k")).toBeNull();
    expect(await stores.requests.readEvents("r")).toEqual([]);
    // Only the store's own bookkeeping exists: no record, index or log was written.
    expect((await listFiles(dir)).map((f) => path.relative(dir, f))).toEqual(["flowrt-store.json"]);
  });

  it("serializes writes of one key within the instance", async () => {
    const stores = openStores();
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, n) => stores.resources.putState(address, "k", { n }, { type: "any" })),
    );
    expect(results.map((result) => (result.ok ? result.version : 0)).sort((a, b) => a - b)).toEqual(
      Array.from({ length: 20 }, (_, n) => n + 1),
    );
    expect(await stores.resources.getState(address, "k")).toMatchObject({ version: 20, state: { n: 19 } });
  });

  it("a throwing subscriber neither breaks the append nor starves other subscribers", async () => {
    const stores = openStores();
    const seen: RequestEvent[] = [];
    stores.requests.subscribe("r", () => {
      throw new Error("listener bug");
    });
    stores.requests.subscribe("r", (event) => seen.push(event));
    const appended = await stores.requests.appendEvent({ requestId: "r", type: "t", at: "", data: { a: 1 } });
    expect(seen).toEqual([appended]);
  });

  it("rejects every call after close", async () => {
    const stores = openStores();
    await stores.resources.putState(address, "k", {}, { type: "absent" });
    await stores.close();
    await stores.close();
    expect(await codeOf(stores.resources.getState(address, "k"))).toBe("store-error");
    expect(await codeOf(stores.sessions.get("s"))).toBe("store-error");
    expect(await codeOf(stores.resources.putState(address, "k", { late: true }, { type: "any" }))).toBe(
      "store-error",
    );
    expect(await codeOf(stores.resources.putState(address, "late", {}, { type: "absent" }))).toBe(
      "store-error",
    );
    // Nothing the closed instance was asked to write reached the folder.
    const reopened = openStores();
    expect(await reopened.resources.getState(address, "k")).toMatchObject({ state: {}, version: 1 });
    expect(await reopened.resources.getState(address, "late")).toBeNull();
  });

  it("sweeps temp files a dead process left behind, and keeps those of live ones", async () => {
    await mkdir(path.join(dir, "tmp"), { recursive: true });
    // Pid 2^22+1 is above Linux's pid_max limit, so no process has it.
    const dead = path.join(dir, "tmp", "4194305-abcd-0.tmp");
    const live = path.join(dir, "tmp", `${process.pid}-other-0.tmp`);
    await writeFile(dead, '{"torn');
    await writeFile(live, "in flight");
    const stores = openStores();
    await stores.sessions.get("warm-up");
    await expect(access(dead)).rejects.toThrow();
    await expect(access(live)).resolves.toBeUndefined();
  });

  it("retention retires an ephemeral session from disk, across a restart, with every file of its data", async () => {
    const first = openStores();
    const eph = sessionRecord({ metadata: { ephemeral: true } });
    const kept = sessionRecord({});
    const long = "2020-01-01T00:00:00.000Z";
    for (const session of [eph, kept]) {
      await first.sessions.create(session);
      for (const bucket of ["shared", "flow-a"]) {
        const at = sessionAddress(session.id, bucket);
        await first.scopeState.put(at, { n: 1 }, { type: "absent" });
        await first.resources.putState(at, "notes/a", { t: 1 }, { type: "absent" });
        await first.resources.putContent(at, "notes/a", "body");
      }
      await first.requests.create(
        requestRecord({ sessionId: session.id, status: "completed", createdAt: long, completedAt: long }),
      );
    }
    // A refused write still registers its bucket, which then has no folder: retiring it is no error.
    const refused = sessionAddress(eph.id, "never-written");
    expect(await first.resources.putState(refused, "k", {}, { type: "version", version: 5 })).toMatchObject({
      ok: false,
    });
    const before = await listFiles(dir);
    await first.close();

    // A new instance: what the first registered on disk is what the purge goes by.
    const second = openStores();
    expect(await second.sessions.list({ userId: eph.userId })).toMatchObject({ total: 1 });
    expect(await second.requests.purgeFinished({ maxAgeMs: 1000 })).toBe(2);
    expect(await second.sessions.get(eph.id)).toBeNull();
    expect(await second.sessions.list({ userId: eph.userId })).toEqual({ items: [], total: 0 });
    expect(await second.sessions.get(kept.id)).toEqual(kept);
    const after = await listFiles(dir);
    // Gone: the session's file, its two scope state files, its two resource folders and its registry.
    const removed = before.filter((file) => !after.includes(file));
    const folders = new Set(removed.map((file) => path.relative(dir, file).split(path.sep)[0]));
    expect(folders).toEqual(new Set(["sessions", "requests", "scope-state", "resources", "session-scopes"]));
    expect(removed.filter((file) => file.includes(`${path.sep}resources${path.sep}`)).length).toBe(2 * 3);
    expect(after.some((file) => file.includes(`${path.sep}session-scopes${path.sep}`))).toBe(true); // the kept one's
    for (const bucket of ["shared", "flow-a"]) {
      const at = sessionAddress(kept.id, bucket);
      expect((await second.resources.getState(at, "notes/a"))?.state).toEqual({ t: 1 });
      expect(await second.resources.getContent(at, "notes/a")).toBe("body");
    }
    // The retired session's address can be written again (its folders are made anew).
    const reused = sessionAddress(eph.id, "shared");
    expect(await second.resources.putState(reused, "notes/a", { t: 2 }, { type: "absent" })).toEqual({
      ok: true,
      version: 1,
    });
    expect(await second.resources.list(reused)).toMatchObject({ total: 1 });
  });

  it("refuses a folder written in another layout format", async () => {
    await mkdir(dir, { recursive: true });
    await writeFile(path.join(dir, "flowrt-store.json"), '{"format":99}');
    const stores = openStores();
    expect(await codeOf(stores.resources.putState(address, "k", {}, { type: "absent" }))).toBe("store-error");
    expect(await readdir(dir)).toEqual(["flowrt-store.json", "tmp"]);
  });
});
