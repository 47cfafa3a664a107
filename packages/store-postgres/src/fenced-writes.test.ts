/**
 * Fenced writes on one store (PGlite, or the server at DATABASE_URL): a write carrying a claim's epoch is refused
 * with `lease-lost`, storing nothing, once the request has a newer claim or is gone; under the current epoch (or a
 * newer one) it proceeds as the unfenced write would. The race between a claim and a fenced write from two pools
 * is in `fenced-writes-race.test.ts`.
 */
import { randomUUID } from "node:crypto";
import type { Fence, FlowStores, RequestRecord, ScopeAddress } from "@flowrt/core";
import { afterAll, afterEach, beforeEach, describe, expect, it } from "vitest";
import { backend, closeSharedPglite, createTestStores, type TestStores } from "./testing/databases.js";

const request = (epoch?: number): RequestRecord => ({
  id: `request-${randomUUID()}`,
  sessionId: "s1",
  flowId: "flow",
  flowKind: "kind",
  action: "act",
  userId: "u1",
  status: "running",
  input: null,
  metadata: {},
  durable: true,
  version: 1,
  createdAt: new Date().toISOString(),
  ...(epoch === undefined ? {} : { epoch }),
});

/** A request claimed once (epoch 1), then taken over (epoch 2): its first claim's fence is stale. */
async function takenOver(stores: FlowStores): Promise<{ stale: Fence; current: Fence }> {
  const record = request(1);
  expect(await stores.requests.create(record)).toBe(true);
  const claimed = await stores.requests.update(record.id, 1, {
    claim: { hostId: "B", until: Date.now() + 5_000 },
    epoch: 2,
  });
  expect(claimed.ok).toBe(true);
  return { stale: { requestId: record.id, epoch: 1 }, current: { requestId: record.id, epoch: 2 } };
}

const leaseLost = (requestId: string, epoch: number, stored: number | null) =>
  expect.objectContaining({
    code: "lease-lost",
    message: expect.stringMatching(
      new RegExp(
        `${requestId}.*${stored === null ? "no longer exists" : `stored epoch ${stored}`}.*epoch ${epoch}`,
      ),
    ),
  });

describe(`fenced writes (${backend})`, () => {
  let db: TestStores;
  let at: ScopeAddress;
  beforeEach(async () => {
    db = await createTestStores();
    at = { scope: "session", scopeId: randomUUID(), bucket: "shared" };
  });
  afterEach(() => db.destroy());
  afterAll(() => closeSharedPglite());

  it("a request's epoch is stored by create, kept by updates without one, and set by a claim", async () => {
    const r = db.stores.requests;
    const fresh = request();
    await r.create(fresh);
    expect((await r.get(fresh.id))?.epoch).toBeUndefined();
    const claimed = request(3);
    await r.create(claimed);
    expect((await r.get(claimed.id))?.epoch).toBe(3);
    expect(await r.update(claimed.id, 1, { status: "running" })).toMatchObject({ ok: true });
    expect((await r.get(claimed.id))?.epoch).toBe(3);
    expect(await r.update(claimed.id, 2, { claim: { hostId: "B", until: 1 }, epoch: 4 })).toMatchObject({
      ok: true,
    });
    // Released claim, epoch kept: a stale run stays refused after the request finished.
    expect(await r.update(claimed.id, 3, { claim: null, status: "completed" })).toMatchObject({ ok: true });
    expect(await r.get(claimed.id)).toMatchObject({ epoch: 4, status: "completed", version: 4 });
    expect((await r.get(claimed.id))?.claim).toBeUndefined();
  });

  it("scope state: refused under a stale epoch for every condition, storing nothing; the current epoch writes", async () => {
    const { stale, current } = await takenOver(db.stores);
    const s = db.stores.scopeState;
    await expect(s.put(at, { n: 1 }, { type: "absent" }, stale)).rejects.toEqual(
      leaseLost(stale.requestId, 1, 2),
    );
    expect(await s.get(at)).toBeNull();
    expect(await s.put(at, { n: 1 }, { type: "absent" }, current)).toEqual({ ok: true, version: 1 });
    await expect(s.put(at, { n: 2 }, { type: "version", version: 1 }, stale)).rejects.toMatchObject({
      code: "lease-lost",
    });
    await expect(s.put(at, { n: 2 }, { type: "any" }, stale)).rejects.toMatchObject({ code: "lease-lost" });
    expect(await s.get(at)).toEqual({ value: { n: 1 }, version: 1 });
    expect(await s.put(at, { n: 2 }, { type: "version", version: 1 }, current)).toEqual({
      ok: true,
      version: 2,
    });
    expect(await s.put(at, { n: 3 }, { type: "any" }, current)).toEqual({ ok: true, version: 3 });
    // A newer epoch than the stored one is not refused (the contract refuses only older ones).
    expect(await s.put(at, { n: 4 }, { type: "any" }, { ...current, epoch: 9 })).toEqual({
      ok: true,
      version: 4,
    });
  });

  it("a lost compare-and-swap under a valid fence is a CAS result, not lease-lost", async () => {
    const { current } = await takenOver(db.stores);
    await db.stores.scopeState.put(at, { n: 1 }, { type: "any" });
    expect(await db.stores.scopeState.put(at, { n: 2 }, { type: "version", version: 7 }, current)).toEqual({
      ok: false,
      current: { value: { n: 1 }, version: 1 },
    });
    expect(
      await db.stores.resources.putState(at, "k", { n: 1 }, { type: "version", version: 1 }, current),
    ).toEqual({ ok: false, current: null });
    await db.stores.resources.putState(at, "k", { n: 1 }, { type: "absent" });
    expect(await db.stores.resources.putState(at, "k", { n: 2 }, { type: "absent" }, current)).toEqual({
      ok: false,
      current: { value: { n: 1 }, version: 1 },
    });
  });

  it("resource state: putState (absent, version, any, capped) and deleteState refused under a stale epoch, storing nothing", async () => {
    const { stale, current } = await takenOver(db.stores);
    const r = db.stores.resources;
    const cap = { prefix: "c/", max: 10 };
    await expect(r.putState(at, "k", { n: 1 }, { type: "absent" }, stale)).rejects.toEqual(
      leaseLost(stale.requestId, 1, 2),
    );
    await expect(r.putState(at, "c/1", { n: 1 }, { type: "absent", cap }, stale)).rejects.toEqual(
      leaseLost(stale.requestId, 1, 2),
    );
    expect(await r.count(at)).toBe(0);
    expect(await r.putState(at, "k", { n: 1 }, { type: "absent" }, current)).toEqual({
      ok: true,
      version: 1,
    });
    expect(await r.putState(at, "c/1", { n: 1 }, { type: "absent", cap }, current)).toEqual({
      ok: true,
      version: 1,
    });
    await r.putContent(at, "k", "body");
    await expect(r.putState(at, "k", { n: 2 }, { type: "version", version: 1 }, stale)).rejects.toMatchObject(
      {
        code: "lease-lost",
      },
    );
    await expect(r.putState(at, "k", { n: 2 }, { type: "any" }, stale)).rejects.toMatchObject({
      code: "lease-lost",
    });
    for (const condition of [{ type: "any" }, { type: "version", version: 1 }, { type: "absent" }] as const) {
      await expect(r.deleteState(at, "k", condition, stale)).rejects.toMatchObject({ code: "lease-lost" });
    }
    expect(await r.getState(at, "k")).toMatchObject({ state: { n: 1 }, version: 1 });
    expect(await r.getContent(at, "k")).toBe("body");
    expect(await r.putState(at, "k", { n: 2 }, { type: "version", version: 1 }, current)).toEqual({
      ok: true,
      version: 2,
    });
    expect(await r.putState(at, "k", { n: 3 }, { type: "any" }, current)).toEqual({ ok: true, version: 3 });
    expect(await r.deleteState(at, "k", { type: "version", version: 3 }, current)).toEqual({
      ok: true,
      version: 4,
    });
    expect(await r.getContent(at, "k")).toBeNull();
    expect(await r.deleteState(at, "k", { type: "any" }, current)).toEqual({ ok: true, version: 4 });
    expect(await r.deleteState(at, "k", { type: "absent" }, current)).toEqual({ ok: true, version: 4 });
    expect(await r.count(at, "c/")).toBe(1);
  });

  it("content: putContent and deleteContent refused under a stale epoch, storing nothing", async () => {
    const { stale, current } = await takenOver(db.stores);
    const r = db.stores.resources;
    await expect(r.putContent(at, "k", "stale", stale)).rejects.toEqual(leaseLost(stale.requestId, 1, 2));
    expect(await r.getContent(at, "k")).toBeNull();
    await r.putContent(at, "k", "current", current);
    expect(await r.getContent(at, "k")).toBe("current");
    await expect(r.putContent(at, "k", "stale", stale)).rejects.toMatchObject({ code: "lease-lost" });
    await expect(r.deleteContent(at, "k", stale)).rejects.toMatchObject({ code: "lease-lost" });
    expect(await r.getContent(at, "k")).toBe("current");
    await r.deleteContent(at, "k", current);
    expect(await r.getContent(at, "k")).toBeNull();
  });

  it("appendEvent: refused under a stale epoch, appending nothing, the terminal event included", async () => {
    const { stale, current } = await takenOver(db.stores);
    const r = db.stores.requests;
    const event = (type: string) => ({
      requestId: stale.requestId,
      type,
      at: new Date().toISOString(),
      data: {},
    });
    await expect(r.appendEvent(event("tick"), stale)).rejects.toEqual(leaseLost(stale.requestId, 1, 2));
    await expect(r.appendEvent(event("request.completed"), stale)).rejects.toMatchObject({
      code: "lease-lost",
    });
    expect(await r.readEvents(stale.requestId)).toEqual([]);
    expect(await r.appendEvent(event("tick"), current)).toMatchObject({ seq: 1, type: "tick" });
    expect(await r.appendEvent(event("request.completed"), current)).toMatchObject({ seq: 2 });
    // The request-finished rule still applies under a valid fence.
    await r.update(stale.requestId, 2, { status: "completed", claim: null });
    await expect(r.appendEvent(event("tick"), current)).rejects.toMatchObject({ code: "request-finished" });
    expect((await r.readEvents(stale.requestId)).map((e) => e.seq)).toEqual([1, 2]);
  });

  it("a fence naming a request that does not exist is refused on every write", async () => {
    const gone: Fence = { requestId: `missing-${randomUUID()}`, epoch: 1 };
    const { resources, scopeState, requests } = db.stores;
    // One at a time: each is refused before the next is sent.
    const refusals = [
      () => scopeState.put(at, { n: 1 }, { type: "any" }, gone),
      () => resources.putState(at, "k", { n: 1 }, { type: "any" }, gone),
      () => resources.putState(at, "c/1", { n: 1 }, { type: "absent", cap: { prefix: "c/", max: 1 } }, gone),
      () => resources.deleteState(at, "k", { type: "any" }, gone),
      () => resources.putContent(at, "k", "x", gone),
      () => resources.deleteContent(at, "k", gone),
      () => requests.appendEvent({ requestId: gone.requestId, type: "tick", at: "", data: {} }, gone),
    ];
    for (const refusal of refusals)
      await expect(refusal()).rejects.toEqual(leaseLost(gone.requestId, 1, null));
    expect(await scopeState.get(at)).toBeNull();
    expect(await resources.count(at)).toBe(0);
    expect(await resources.getContent(at, "k")).toBeNull();
    expect(await requests.readEvents(gone.requestId)).toEqual([]);
  });

  it("a malformed fence is a TypeError before anything is sent", async () => {
    const bad = { requestId: "r", epoch: 1.5 } as Fence;
    await expect(db.stores.scopeState.put(at, { n: 1 }, { type: "any" }, bad)).rejects.toThrow(TypeError);
    await expect(db.stores.resources.putContent(at, "k", "x", bad)).rejects.toThrow(TypeError);
    expect(await db.stores.scopeState.get(at)).toBeNull();
  });
});
