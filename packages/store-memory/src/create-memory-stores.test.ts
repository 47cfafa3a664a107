import { DEFAULT_RETENTION, type JsonObject, type RequestRecord, type ScopeAddress } from "@flowrt/core";
import { sessionAddress, sessionRecord } from "@flowrt/store-conformance";
import { afterEach, describe, expect, it, vi } from "vitest";
import { createMemoryStores, DEFAULT_MEMORY_RETENTION } from "./create-memory-stores.js";

const address: ScopeAddress = { scope: "session", scopeId: "s1", bucket: "shared" };

function request(id: string, overrides: Partial<RequestRecord> = {}): RequestRecord {
  return {
    id,
    sessionId: "s1",
    flowId: "f",
    flowKind: "f",
    action: "a",
    userId: "u",
    status: "queued",
    input: null,
    metadata: {},
    durable: false,
    version: 1,
    createdAt: new Date().toISOString(),
    ...overrides,
  };
}

afterEach(() => {
  vi.useRealTimers();
  vi.restoreAllMocks();
});

describe("createMemoryStores", () => {
  it("names itself and does not claim cross-process guarantees", async () => {
    const stores = createMemoryStores();
    expect(stores.kind).toBe("memory");
    expect(stores.crossProcess).toBe(false);
    await stores.close();
  });

  it("refuses a fenced write once the request is claimed again, changing nothing", async () => {
    const stores = createMemoryStores();
    await stores.requests.create(request("r", { status: "running", durable: true, epoch: 1 }));
    await stores.resources.putState(address, "k", { n: 1 }, { type: "absent" });
    await stores.resources.putContent(address, "k", "body");
    await stores.scopeState.put(address, { n: 1 }, { type: "absent" });
    await stores.resources.touch(address, "k", 1000);
    const before = {
      state: await stores.resources.getState(address, "k"),
      content: await stores.resources.getContent(address, "k"),
      scope: await stores.scopeState.get(address),
    };
    expect(
      await stores.requests.update("r", 1, { claim: { hostId: "b", until: Date.now() + 1000 }, epoch: 2 }),
    ).toEqual({ ok: true, version: 2 });
    const stale = { requestId: "r", epoch: 1 };
    const other: ScopeAddress = { ...address, scopeId: "untouched" };
    const refused = [
      () => stores.resources.putState(address, "k", { n: 2 }, { type: "any" }, stale),
      () => stores.resources.putState(other, "k", { n: 2 }, { type: "any" }, stale),
      () => stores.resources.deleteState(address, "k", { type: "any" }, stale),
      () => stores.resources.putContent(address, "k", "changed", stale),
      () => stores.resources.putContent(other, "fresh", "changed", stale),
      () => stores.resources.deleteContent(address, "k", stale),
      () => stores.scopeState.put(address, { n: 2 }, { type: "any" }, stale),
    ];
    for (const write of refused) await expect(write()).rejects.toMatchObject({ code: "lease-lost" });
    expect({
      state: await stores.resources.getState(address, "k"),
      content: await stores.resources.getContent(address, "k"),
      scope: await stores.scopeState.get(address),
    }).toEqual(before);
    expect(await stores.resources.list(other)).toEqual({ items: [], total: 0 });
    expect(await stores.resources.getContent(other, "fresh")).toBeNull();
    // The claim's own epoch writes.
    const current = { requestId: "r", epoch: 2 };
    expect(await stores.resources.putState(address, "k", { n: 3 }, { type: "any" }, current)).toEqual({
      ok: true,
      version: 2,
    });
    expect(await stores.scopeState.put(address, { n: 3 }, { type: "any" }, current)).toEqual({
      ok: true,
      version: 2,
    });
    await stores.close();
  });

  it("its retention defaults are the one default, which the host applies", () => {
    expect(DEFAULT_MEMORY_RETENTION).toBe(DEFAULT_RETENTION);
    expect(Object.isFrozen(DEFAULT_MEMORY_RETENTION)).toBe(true);
  });

  it("runs no retention timer of its own, and keeps its retention option for the host", async () => {
    vi.useFakeTimers();
    const stores = createMemoryStores({ retention: { intervalMs: 1000 } });
    expect(vi.getTimerCount()).toBe(0);
    expect(stores.retention).toEqual({ intervalMs: 1000 });
    await stores.close();
    const untimed = createMemoryStores({ retention: false });
    expect(untimed.retention).toBe(false);
    expect(createMemoryStores().retention).toBeUndefined();
    await untimed.requests.create(
      request("old", { status: "completed", completedAt: new Date(0).toISOString() }),
    );
    // The primitive the host purges through still works when called directly.
    expect(await untimed.requests.purgeFinished({ maxAgeMs: 1000 })).toBe(1);
    await untimed.close();
  });

  it("refuses invalid retention options", () => {
    expect(() => createMemoryStores({ retention: { maxAgeMs: -1 } })).toThrow(/retention.maxAgeMs/);
    expect(() => createMemoryStores({ retention: { intervalMs: 0 } })).toThrow(/retention: false/);
    expect(() => createMemoryStores({ retention: { maxCount: Number.NaN } })).toThrow(/retention.maxCount/);
  });

  it("isolates a throwing listener: the append succeeds and other listeners still run", async () => {
    const errors: unknown[] = [];
    const stores = createMemoryStores({ retention: false, onListenerError: (error) => errors.push(error) });
    const seen: number[] = [];
    stores.requests.subscribe("r", () => {
      throw new Error("listener bug");
    });
    stores.requests.subscribe("r", (event) => seen.push(event.seq));
    const event = await stores.requests.appendEvent({
      requestId: "r",
      type: "x",
      at: "2024-01-01T00:00:00Z",
      data: {},
    });
    expect(event.seq).toBe(1);
    expect(seen).toEqual([1]);
    expect(errors).toEqual([new Error("listener bug")]);
    await stores.close();
  });

  it("by default reports a throwing listener with console.error", async () => {
    const log = vi.spyOn(console, "error").mockImplementation(() => {});
    const stores = createMemoryStores({ retention: false });
    stores.requests.subscribe("r", () => {
      throw new Error("listener bug");
    });
    await stores.requests.appendEvent({ requestId: "r", type: "x", at: "2024-01-01T00:00:00Z", data: {} });
    expect(log).toHaveBeenCalledOnce();
    await stores.close();
  });

  it("delivers nothing after close", async () => {
    const stores = createMemoryStores({ retention: false });
    const seen: unknown[] = [];
    stores.requests.subscribe("r", (event) => seen.push(event));
    await stores.close();
    await stores.requests.appendEvent({ requestId: "r", type: "x", at: "2024-01-01T00:00:00Z", data: {} });
    expect(seen).toEqual([]);
  });

  it("refuses malformed arguments with a clear error and writes nothing", async () => {
    const stores = createMemoryStores({ retention: false });
    const r = stores.resources;
    await expect(r.putState(address, "k", [] as never, { type: "any" })).rejects.toThrow(/JSON object/);
    await expect(r.putState(address, "k", {}, { type: "version" } as never)).rejects.toThrow(
      /write condition/,
    );
    await expect(r.putState({ scope: "team" } as never, "k", {}, { type: "any" })).rejects.toThrow(
      /scope address/,
    );
    await expect(r.putState(address, 7 as never, {}, { type: "any" })).rejects.toThrow(
      /key must be a string/,
    );
    await expect(r.putState(address, "k", { f: (() => 1) as never }, { type: "any" })).rejects.toThrow();
    expect(await r.getState(address, "k")).toBeNull();
    expect(await r.count(address)).toBe(0);

    await expect(r.list(address, { offset: -1 })).rejects.toThrow(/offset must be a non-negative integer/);
    await expect(r.list(address, { limit: 1.5 })).rejects.toThrow(/limit must be a non-negative integer/);
    await expect(stores.sessions.list({ userId: "u", limit: -2 })).rejects.toThrow(/limit/);
    await expect(stores.requests.create(request("bad", { status: "paused" as never }))).rejects.toThrow(
      /status/,
    );
    expect(await stores.requests.get("bad")).toBeNull();
    await expect(stores.requests.update("none", 1, {})).resolves.toEqual({ ok: false, current: null });
    await stores.close();
  });

  it("a failed request update changes nothing, even when the patch names an unknown status", async () => {
    const stores = createMemoryStores({ retention: false });
    await stores.requests.create(request("r1"));
    await expect(stores.requests.update("r1", 1, { status: "paused" as never })).rejects.toThrow(/status/);
    expect(await stores.requests.get("r1")).toMatchObject({ status: "queued", version: 1 });
    expect(await stores.requests.listByStatus(["queued"])).toHaveLength(1);
    await stores.close();
  });
});

describe("ephemeral sessions", () => {
  const session = (id: string, metadata: JsonObject) => sessionRecord({ id, userId: "u", metadata });
  const done = { status: "completed" as const, completedAt: new Date().toISOString() };

  it("go with the last of their requests, and their session state and resources with them", async () => {
    const stores = createMemoryStores({ retention: false });
    await stores.sessions.create(session("eph", { ephemeral: true }));
    await stores.sessions.create(session("kept", {}));
    await stores.scopeState.put(sessionAddress("eph"), { n: 1 }, { type: "absent" });
    const ownBucket: ScopeAddress = { scope: "session", scopeId: "eph", bucket: "f" };
    await stores.scopeState.put(ownBucket, { n: 3 }, { type: "absent" });
    await stores.resources.putState(sessionAddress("eph"), "notes", { n: 1 }, { type: "absent" });
    await stores.scopeState.put(sessionAddress("kept"), { n: 2 }, { type: "absent" });
    await stores.requests.create(request("r1", { sessionId: "eph", ...done }));
    await stores.requests.create(request("r2", { sessionId: "eph", ...done }));
    await stores.requests.create(request("r3", { sessionId: "kept", ...done }));

    // One of its two requests removed: the ephemeral session stays.
    expect(await stores.requests.purgeFinished({ maxCount: 2 })).toBe(1);
    expect(await stores.sessions.get("eph")).not.toBeNull();

    expect(await stores.requests.purgeFinished({ maxCount: 0 })).toBe(2);
    expect(await stores.sessions.get("eph")).toBeNull();
    expect(await stores.scopeState.get(sessionAddress("eph"))).toBeNull();
    expect(await stores.scopeState.get(ownBucket)).toBeNull();
    expect(await stores.resources.getState(sessionAddress("eph"), "notes")).toBeNull();
    expect((await stores.sessions.list({ userId: "u", limit: 10 })).items.map((s) => s.id)).toEqual(["kept"]);
    // A session without the mark outlives its requests, state included.
    expect(await stores.sessions.get("kept")).not.toBeNull();
    expect(await stores.scopeState.get(sessionAddress("kept"))).toMatchObject({ value: { n: 2 } });
    await stores.close();
  });

  it("stay while a request that ran in them is unfinished, and follow metadata updates", async () => {
    const stores = createMemoryStores({ retention: false });
    await stores.sessions.create(session("running", { ephemeral: true }));
    await stores.sessions.create(session("marked-later", {}));
    await stores.sessions.create(session("unmarked-later", { ephemeral: true }));
    await stores.requests.create(request("r1", { sessionId: "running", status: "running" }));
    await stores.requests.create(request("r2", { sessionId: "marked-later", ...done }));
    await stores.requests.create(request("r3", { sessionId: "unmarked-later", ...done }));
    await stores.sessions.update("marked-later", { metadata: { ephemeral: true } });
    await stores.sessions.update("unmarked-later", { metadata: { ephemeral: false } });

    expect(await stores.requests.purgeFinished({ maxCount: 0 })).toBe(2);
    expect(await stores.sessions.get("running")).not.toBeNull();
    expect(await stores.sessions.get("marked-later")).toBeNull();
    expect(await stores.sessions.get("unmarked-later")).not.toBeNull();

    await stores.requests.update("r1", 1, done);
    expect(await stores.requests.purgeFinished({ maxCount: 0 })).toBe(1);
    expect(await stores.sessions.get("running")).toBeNull();
    await stores.close();
  });
});

describe("session removal and scope removal", () => {
  it("take the session's requests, state and resources in every bucket, and nothing of anyone else", async () => {
    const stores = createMemoryStores();
    const owner = sessionRecord({ userId: "u" });
    const other = sessionRecord({ userId: "u" });
    await stores.sessions.create(owner);
    await stores.sessions.create(other);
    await stores.requests.create(request("r1", { sessionId: owner.id }));
    await stores.requests.create(request("r2", { sessionId: other.id }));
    await stores.requests.appendEvent({ requestId: "r1", type: "t", at: "x", data: {} });
    await stores.requests.appendEvent({ requestId: "r1", type: "t", at: "x", data: {} });
    for (const id of [owner.id, other.id]) {
      for (const bucket of ["shared", "flow"]) {
        const at = sessionAddress(id, bucket);
        await stores.scopeState.put(at, { n: 1 }, { type: "absent" });
        await stores.resources.putState(at, "a", { n: 1 }, { type: "absent" });
        await stores.resources.putState(at, "b", { n: 1 }, { type: "absent" });
        await stores.resources.deleteState(at, "b", { type: "any" });
        await stores.resources.putContent(at, "a", "body");
        await stores.resources.putContent(at, "only-content", "body");
      }
    }
    expect(await stores.sessions.markDeleting(owner.id)).toBe(true);
    expect(await stores.sessions.remove(owner.id)).toEqual({
      requests: 1,
      events: 2,
      states: 2,
      resources: 4,
      contents: 4,
    });
    expect(await stores.requests.get("r1")).toBeNull();
    expect(await stores.resources.getContent(sessionAddress(owner.id, "flow"), "only-content")).toBeNull();
    expect(await stores.requests.get("r2")).not.toBeNull();
    expect(await stores.resources.getContent(sessionAddress(other.id, "flow"), "only-content")).toBe("body");
    expect(await stores.resources.count(sessionAddress(other.id, "flow"))).toBe(1);

    const user: ScopeAddress = { scope: "user", scopeId: "u", bucket: "flow" };
    await stores.scopeState.put(user, { n: 1 }, { type: "absent" });
    await stores.resources.putState(user, "a", { n: 1 }, { type: "absent" });
    await stores.resources.putContent(user, "a", "body");
    expect(await stores.scopeState.removeScope("user", "u")).toEqual({
      states: 1,
      resources: 1,
      contents: 1,
    });
    expect(await stores.scopeState.removeScope("user", "u")).toEqual({
      states: 0,
      resources: 0,
      contents: 0,
    });
    expect(await stores.scopeState.get(sessionAddress(other.id, "flow"))).not.toBeNull();
    await stores.close();
  });
});
