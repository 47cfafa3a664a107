import { appendFile, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import type { FlowStores, ScopeAddress } from "@flowrt/core";
import { isFlowError } from "@flowrt/core";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createFsStores } from "./create-fs-stores.js";
import { listFiles, unreadableFiles } from "./testing/file-tree.js";
import { makeTempDir, removeTempDir } from "./testing/temp-dir.js";

const address: ScopeAddress = { scope: "session", scopeId: "s1", bucket: "shared" };

describe("recovery from what a crash leaves", () => {
  let dir: string;
  const open: FlowStores[] = [];
  const openStores = (fsync = true) => {
    const stores = createFsStores({ dir, retention: false, fsync });
    open.push(stores);
    return stores;
  };
  const onlyFile = async (suffix: string) => {
    const files = (await listFiles(dir)).filter((f) => f.endsWith(suffix));
    expect(files).toHaveLength(1);
    return files[0]!;
  };

  beforeEach(async () => {
    dir = await makeTempDir();
  });
  afterEach(async () => {
    for (const stores of open.splice(0)) await stores.close();
    await removeTempDir(dir);
  });

  it("a new instance over the same directory sees everything the last one wrote", async () => {
    const a = openStores();
    const session = {
      id: "s1",
      flowId: "f",
      flowKind: "f",
      userId: "u1",
      rootSessionId: "s1",
      metadata: { m: 1 },
      createdAt: "2024-01-01T00:00:00.000Z",
    };
    await a.sessions.create(session);
    await a.sessions.create({
      ...session,
      id: "s2",
      parentSessionId: "s1",
      createdAt: "2024-01-02T00:00:00.000Z",
    });
    const request = {
      id: "r1",
      sessionId: "s1",
      flowId: "f",
      flowKind: "f",
      action: "act",
      userId: "u1",
      status: "queued" as const,
      input: { q: 1 },
      metadata: {},
      durable: true,
      version: 1,
      createdAt: "2024-01-01T00:00:00.000Z",
    };
    await a.requests.create(request);
    await a.requests.update("r1", 1, { status: "running" });
    await a.requests.appendEvent({ requestId: "r1", type: "request.started", at: "t", data: { n: 1 } });
    await a.requests.appendEvent({ requestId: "r1", type: "text.delta", at: "t", data: { n: 2 } });
    const active = {
      requestId: "r1",
      sessionId: "s1",
      flowId: "f",
      userId: "u1",
      action: "act",
      startedAt: "t",
    };
    await a.requests.markActive(active);
    await a.scopeState.put({ scope: "user", scopeId: "u1", bucket: "shared" }, { n: 1 }, { type: "absent" });
    for (const key of ["b", "a", "c", "gone"])
      await a.resources.putState(address, key, { key }, { type: "absent" });
    await a.resources.putState(address, "a", { key: "a", again: true }, { type: "any" });
    await a.resources.deleteState(address, "gone", { type: "any" });
    await a.resources.putContent(address, "b", "body of b");
    await a.close();

    const b = openStores();
    expect(await b.sessions.get("s1")).toEqual(session);
    expect(await b.sessions.list({ userId: "u1" })).toMatchObject({
      total: 2,
      items: [{ id: "s2" }, { id: "s1" }],
    });
    expect(await b.sessions.listChildren("s1", { userId: "u1" })).toMatchObject([{ id: "s2" }]);
    expect(await b.requests.get("r1")).toEqual({ ...request, status: "running", version: 2 });
    expect(await b.requests.listByStatus(["running"])).toMatchObject([{ id: "r1" }]);
    expect((await b.requests.readEvents("r1")).map((e) => e.data)).toEqual([{ n: 1 }, { n: 2 }]);
    expect((await b.requests.appendEvent({ requestId: "r1", type: "x", at: "t", data: {} })).seq).toBe(3);
    expect(await b.requests.listActive({ userId: "u1" })).toEqual([active]);
    expect(await b.scopeState.get({ scope: "user", scopeId: "u1", bucket: "shared" })).toEqual({
      value: { n: 1 },
      version: 1,
    });
    expect((await b.resources.list(address)).items.map((i) => [i.key, i.version])).toEqual([
      ["a", 2],
      ["b", 1],
      ["c", 1],
    ]);
    expect(await b.resources.getContent(address, "b")).toBe("body of b");
    // The tombstone survived: the version count goes on.
    expect(await b.resources.putState(address, "gone", {}, { type: "absent" })).toEqual({
      ok: true,
      version: 3,
    });
  });

  it("an index transaction cut before its commit is settled by the value file", async () => {
    const a = openStores();
    await a.resources.putState(address, "kept", {}, { type: "absent" });
    await a.resources.putState(address, "created", {}, { type: "absent" });
    await a.resources.putState(address, "deleted", {}, { type: "absent" });
    await a.resources.deleteState(address, "deleted", { type: "any" });
    await a.close();

    // Drop every commit line: each intent is now unfinished, as if the process died right after
    // writing its value file. Add an intent whose value file was never written.
    const log = await onlyFile("index.log");
    const lines = (await readFile(log, "utf8"))
      .split("\n")
      .filter((line) => line !== "" && !line.startsWith('{"c"'));
    lines.push(JSON.stringify({ i: 99, k: "never-written", l: true }));
    await writeFile(log, `${lines.join("\n")}\n`);

    const b = openStores();
    expect((await b.resources.list(address)).items.map((i) => i.key)).toEqual(["created", "kept"]);
    expect(await b.resources.count(address)).toBe(2);
    // Recovery rewrote the log without the unfinished intents.
    expect(await readFile(log, "utf8")).not.toContain('"i":');
    await b.close();
    expect((await openStores().resources.list(address)).total).toBe(2);
  });

  it("a torn last line of an index log or event log is ignored and cut off", async () => {
    const a = openStores();
    await a.resources.putState(address, "k1", {}, { type: "absent" });
    for (let n = 1; n <= 3; n++)
      await a.requests.appendEvent({ requestId: "r", type: "t", at: "", data: { n } });
    await a.close();
    await appendFile(await onlyFile("index.log"), '{"i":7,"k":"k2","l":tr');
    await appendFile(await onlyFile(".jsonl"), '{"seq":4,"type":"t","requ');
    expect(await unreadableFiles(dir)).toHaveLength(2);

    const b = openStores();
    expect((await b.resources.list(address)).items.map((i) => i.key)).toEqual(["k1"]);
    expect((await b.requests.readEvents("r")).map((e) => e.seq)).toEqual([1, 2, 3]);
    expect((await b.requests.appendEvent({ requestId: "r", type: "t", at: "", data: {} })).seq).toBe(4);
    await b.resources.putState(address, "k2", {}, { type: "absent" });
    expect((await b.requests.readEvents("r")).map((e) => e.seq)).toEqual([1, 2, 3, 4]);
    expect(await unreadableFiles(dir)).toEqual([]);
  });

  it("corruption inside an index log is reported as a store error, not a crash", async () => {
    const a = openStores();
    await a.resources.putState(address, "k1", {}, { type: "absent" });
    await a.close();
    const log = await onlyFile("index.log");
    const intact = await readFile(log, "utf8");
    for (const bad of ["not json", "null", "42", '{"x":1}']) {
      await writeFile(log, `${bad}\n${intact}`);
      const stores = openStores();
      const error = await stores.resources.list(address).catch((e: unknown) => e);
      expect(isFlowError(error) && error.code, bad).toBe("store-error");
      await stores.close();
    }
  });

  it("a corrupt event log is reported as a store error, not a crash", async () => {
    const a = openStores();
    await a.requests.appendEvent({ requestId: "r", type: "t", at: "", data: {} });
    await a.close();
    const log = await onlyFile(".jsonl");
    const intact = await readFile(log, "utf8");
    for (const bad of ["{ torn", "null", "[1]"]) {
      await writeFile(log, `${bad}\n${intact}`);
      const stores = openStores();
      const error = await stores.requests.readEvents("r").catch((e: unknown) => e);
      expect(isFlowError(error) && error.code, bad).toBe("store-error");
      await stores.close();
    }
  });

  it("the index log is compacted as deletes and re-creates pile up", async () => {
    const stores = openStores(false);
    for (let round = 0; round < 400; round++) {
      for (const key of ["x", "y"]) {
        await stores.resources.putState(address, key, { round }, { type: "absent" });
        await stores.resources.deleteState(address, key, { type: "any" });
      }
    }
    await stores.resources.putState(address, "z", {}, { type: "absent" });
    await stores.close();
    // 1,601 transactions would be 3,202 lines without compaction.
    const lines = (await readFile(await onlyFile("index.log"), "utf8")).split("\n").length;
    expect(lines).toBeLessThan(1100);
    const reopened = openStores();
    expect((await reopened.resources.list(address)).items.map((i) => i.key)).toEqual(["z"]);
    expect(await reopened.resources.putState(address, "x", {}, { type: "absent" })).toEqual({
      ok: true,
      version: 801,
    });
  }, 30_000); // 1600 durable writes (each fsynced): about 4 s on an idle 2-core machine, near the 5 s default

  it("a delete cut after its tombstone leaves the item gone: the content row of the ended life is never read, and recovery removes it", async () => {
    const a = openStores();
    await a.resources.putState(address, "a", { n: 1 }, { type: "absent" });
    await a.resources.putContent(address, "a", "acknowledged body");
    const contentFiles = (await listFiles(dir)).filter((f) => f.includes(`${path.sep}content${path.sep}`));
    expect(contentFiles).toHaveLength(1);
    const contentFile = contentFiles[0]!;
    const contentText = await readFile(contentFile, "utf8");
    await a.resources.deleteState(address, "a", { type: "any" });
    await a.close();
    // The process died after the tombstone's rename, before the content row was removed and the commit written.
    await writeFile(contentFile, contentText);
    await dropCommitLines(await onlyFile("index.log"));

    const b = openStores();
    expect(await b.resources.getContent(address, "a")).toBeNull();
    expect(await b.resources.getState(address, "a")).toBeNull();
    expect(await b.resources.count(address)).toBe(0);
    expect((await listFiles(dir)).filter((f) => f.includes(`${path.sep}content${path.sep}`))).toEqual([]);
    // A re-create starts empty, not with the content of the life the delete ended.
    await writeFile(contentFile, contentText);
    expect(await b.resources.putState(address, "a", { n: 2 }, { type: "absent" })).toEqual({
      ok: true,
      version: 3,
    });
    expect(await b.resources.getContent(address, "a")).toBeNull();
    await b.resources.putContent(address, "a", "new body");
    expect(await b.resources.getContent(address, "a")).toBe("new body");
  });

  it("a delete cut before its tombstone leaves the item whole", async () => {
    const a = openStores();
    await a.resources.putState(address, "a", { n: 1 }, { type: "absent" });
    await a.resources.putContent(address, "a", "body");
    await a.close();
    // Only the delete's intent reached the log.
    await appendFile(await onlyFile("index.log"), `${JSON.stringify({ i: 50, k: "a", l: false })}\n`);

    const b = openStores();
    expect(await b.resources.getState(address, "a")).toMatchObject({ state: { n: 1 }, version: 1 });
    expect(await b.resources.getContent(address, "a")).toBe("body");
    expect(await b.resources.count(address)).toBe(1);
  });

  it("content written to a deleted key stays with the key when it is created again", async () => {
    const stores = openStores();
    await stores.resources.putState(address, "a", {}, { type: "absent" });
    await stores.resources.deleteState(address, "a", { type: "any" });
    await stores.resources.putContent(address, "a", "stray");
    expect(await stores.resources.getContent(address, "a")).toBe("stray");
    await stores.resources.putState(address, "a", {}, { type: "absent" });
    expect(await stores.resources.getContent(address, "a")).toBe("stray");
    await stores.close();
    expect(await openStores().resources.getContent(address, "a")).toBe("stray");
  });

  it("value and content files written before lives existed read as one life", async () => {
    const a = openStores();
    await a.resources.putState(address, "a", { n: 1 }, { type: "absent" });
    await a.resources.putContent(address, "a", "old body");
    await a.close();
    // Files as the store wrote them before: no "life" field anywhere.
    for (const file of await listFiles(dir)) {
      if (!file.includes(`${path.sep}resources${path.sep}`) || !file.endsWith(".json")) continue;
      const doc = JSON.parse(await readFile(file, "utf8"));
      delete doc.life;
      await writeFile(file, JSON.stringify(doc));
    }
    const b = openStores();
    expect(await b.resources.getContent(address, "a")).toBe("old body");
    await b.resources.putState(address, "a", { n: 2 }, { type: "any" });
    expect(await b.resources.getContent(address, "a")).toBe("old body");
    await b.resources.deleteState(address, "a", { type: "any" });
    expect(await b.resources.getContent(address, "a")).toBeNull();
  });

  it("a list page reads only its own value files", async () => {
    const stores = openStores();
    for (const key of ["a", "b", "c", "d"])
      await stores.resources.putState(address, key, { key }, { type: "absent" });
    // Corrupt the value file of "d": a page that does not include it must not notice.
    const before = new Set(await listFiles(dir));
    await stores.resources.putState(address, "d", { key: "d", marker: true }, { type: "any" });
    const changed = (await listFiles(dir)).filter((f) => f.includes(`${path.sep}state${path.sep}`));
    const dFile = await findFileContaining(changed, '"marker":true');
    expect(before.has(dFile)).toBe(true);
    await writeFile(dFile, "{ torn");

    expect((await stores.resources.list(address, { limit: 2 })).items.map((i) => i.key)).toEqual(["a", "b"]);
    expect(await stores.resources.list(address, { prefix: "c" })).toMatchObject({
      total: 1,
      items: [{ key: "c" }],
    });
    expect(await stores.resources.count(address)).toBe(4);
    const error = await stores.resources.getState(address, "d").catch((e: unknown) => e);
    expect(isFlowError(error) && error.code).toBe("store-error");
  });
});

/** Removes every commit line of an index log: its transactions now look cut short by a crash. */
async function dropCommitLines(log: string): Promise<void> {
  const lines = (await readFile(log, "utf8"))
    .split("\n")
    .filter((line) => line !== "" && !line.startsWith('{"c"'));
  await writeFile(log, `${lines.join("\n")}\n`);
}

async function findFileContaining(files: string[], needle: string): Promise<string> {
  for (const file of files) if ((await readFile(file, "utf8")).includes(needle)) return file;
  throw new Error(`no file contains ${needle}`);
}
