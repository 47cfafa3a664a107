import { rm } from "node:fs/promises";
import path from "node:path";
import type { FlowStores, ScopeAddress } from "@flowrt/core";
import { isFlowError } from "@flowrt/core";
import { requestRecord, sessionRecord } from "@flowrt/store-conformance";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createFsStores } from "./create-fs-stores.js";
import { listFiles } from "./testing/file-tree.js";
import { makeTempDir, removeTempDir } from "./testing/temp-dir.js";

async function codeOf(promise: Promise<unknown>): Promise<string | undefined> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  return isFlowError(error) ? error.code : `not a flow error: ${String(error)}`;
}

/** The conversation lifecycle across a restart: what one instance leaves on disk is what the next one reads. */
describe("lifecycle operations over a reopened folder", () => {
  let parent: string;
  let dir: string;
  const open: FlowStores[] = [];
  const openStores = () => {
    const stores = createFsStores({ dir, retention: false });
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

  it("a deleting mark, merged metadata and a removed title outlive the instance; listings built from disk leave the marked session out", async () => {
    const first = openStores();
    const userId = "u";
    const base = Date.parse("2024-01-01T00:00:00.000Z");
    const records = [0, 1, 2].map((i) =>
      sessionRecord({ userId, title: "t", createdAt: new Date(base + i).toISOString(), metadata: { a: i } }),
    );
    for (const record of records) await first.sessions.create(record);
    await first.sessions.update(records[0]!.id, { title: null, metadataPatch: { b: true, a: null } });
    expect(await first.sessions.markDeleting(records[1]!.id)).toBe(true);
    await first.close();

    const second = openStores();
    expect(await second.sessions.get(records[0]!.id)).toEqual({
      ...records[0],
      title: undefined,
      metadata: { b: true },
    });
    expect(await second.sessions.get(records[1]!.id)).toMatchObject({ deleting: true });
    const page = await second.sessions.list({ userId });
    expect(page.items.map((s) => s.id)).toEqual([records[2]!.id, records[0]!.id]);
    expect(page.total).toBe(2);
    const after = { createdAt: records[2]!.createdAt, id: records[2]!.id };
    expect((await second.sessions.list({ userId, after })).items.map((s) => s.id)).toEqual([records[0]!.id]);
  });

  it("a session's requests are listed by keyset from a summary built from disk, and removals keep it in step", async () => {
    const first = openStores();
    const sessionId = "s";
    const base = Date.parse("2024-01-01T00:00:00.000Z");
    const requests = [0, 1, 2, 3].map((i) =>
      requestRecord({
        id: `r${i}`,
        sessionId,
        userId: i < 2 ? "u" : "v",
        createdAt: new Date(base + i).toISOString(),
      }),
    );
    for (const record of requests) await first.requests.create(record);
    await first.close();

    const second = openStores();
    const ids = async (after?: { createdAt: string; id: string }) =>
      (await second.requests.listBySession(sessionId, { limit: 2, ...(after ? { after } : {}) })).map(
        (r) => r.id,
      );
    expect(await ids()).toEqual(["r3", "r2"]);
    expect(await ids({ createdAt: requests[2]!.createdAt, id: "r2" })).toEqual(["r1", "r0"]);
    expect(await second.requests.removeByUser("v")).toBe(2);
    expect(await ids()).toEqual(["r1", "r0"]);
    await second.requests.create(
      requestRecord({ id: "r9", sessionId, createdAt: new Date(base + 9).toISOString() }),
    );
    expect(await ids()).toEqual(["r9", "r1"]);
    expect(await codeOf(second.requests.listBySession(sessionId, { limit: -1 }))).toBe("invalid-pagination");
    expect(
      await codeOf(second.requests.listBySession(sessionId, { limit: 1, after: { id: "x" } as never })),
    ).toBe("invalid-request");
  });

  it("removeScope finds the buckets an earlier instance wrote, and the shared bucket without a registration", async () => {
    const first = openStores();
    const user = (bucket: string): ScopeAddress => ({ scope: "user", scopeId: "u", bucket });
    for (const bucket of ["shared", "flow-a"]) {
      await first.scopeState.put(user(bucket), { n: 1 }, { type: "absent" });
      await first.resources.putState(user(bucket), "k", { n: 1 }, { type: "absent" });
      await first.resources.putContent(user(bucket), "k", "body");
    }
    await first.close();
    // Data in the shared bucket is found even when no registration names it (as a store older than them wrote it).
    const registrations = (await listFiles(dir)).filter((file) =>
      file.includes(`${path.sep}user-scopes${path.sep}`),
    );
    expect(registrations).toHaveLength(1);
    const onlyFlowA = openStores();
    await rm(registrations[0]!);
    // Writes to flow-a register it again (state and resources); the shared bucket stays unregistered.
    await onlyFlowA.scopeState.put(user("flow-a"), { n: 2 }, { type: "version", version: 1 });
    await onlyFlowA.resources.putState(user("flow-a"), "k", { n: 2 }, { type: "version", version: 1 });
    await onlyFlowA.close();

    const second = openStores();
    expect(await second.scopeState.removeScope("user", "u")).toEqual({
      states: 2,
      resources: 2,
      contents: 2,
    });
    for (const bucket of ["shared", "flow-a"]) {
      expect(await second.scopeState.get(user(bucket))).toBeNull();
      expect(await second.resources.list(user(bucket))).toEqual({ items: [], total: 0 });
    }
    const left = (await listFiles(dir)).map((file) => path.relative(dir, file).split(path.sep)[0]);
    expect(new Set(left)).toEqual(new Set(["flowrt-store.json"]));
    expect(await codeOf(second.scopeState.removeScope("session" as never, "u"))).toBe("invalid-request");
  });

  it("a removed session leaves no file behind, and its requests, state and resources are gone for a new instance", async () => {
    const first = openStores();
    const session = sessionRecord();
    await first.sessions.create(session);
    await first.requests.create(requestRecord({ id: "r", sessionId: session.id }));
    await first.requests.appendEvent({ requestId: "r", type: "t", at: "x", data: {} });
    await first.requests.markActive({
      requestId: "r",
      sessionId: session.id,
      flowId: "f",
      userId: session.userId,
      action: "a",
      startedAt: "x",
    });
    const at: ScopeAddress = { scope: "session", scopeId: session.id, bucket: "flow-a" };
    await first.scopeState.put(at, { n: 1 }, { type: "absent" });
    await first.resources.putState(at, "k", {}, { type: "absent" });
    const before = await listFiles(dir);
    expect(await first.sessions.remove(session.id)).toEqual({
      requests: 1,
      events: 1,
      states: 1,
      resources: 1,
      contents: 0,
    });
    const left = await listFiles(dir);
    expect(left).toEqual([path.join(dir, "flowrt-store.json")]);
    expect(before.length).toBeGreaterThan(left.length);
    await first.close();

    const second = openStores();
    expect(await second.sessions.get(session.id)).toBeNull();
    expect(await second.requests.get("r")).toBeNull();
    expect(await second.requests.listActive({})).toEqual([]);
    expect(await second.sessions.remove(session.id)).toBeNull();
  });
});
