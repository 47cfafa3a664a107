import type { FlowStores, RequestRecord, ScopeAddress } from "@flowrt/core";
import { isFlowError } from "@flowrt/core";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createFsStores } from "./create-fs-stores.js";
import { makeTempDir, removeTempDir } from "./testing/temp-dir.js";

const address: ScopeAddress = { scope: "session", scopeId: "s1", bucket: "shared" };
const request: RequestRecord = {
  id: "r1",
  sessionId: "s1",
  flowId: "f",
  flowKind: "f",
  action: "act",
  userId: "u1",
  status: "queued",
  input: {},
  metadata: {},
  durable: true,
  version: 1,
  createdAt: "2024-01-01T00:00:00.000Z",
};

/** Claims `id` as the engine does: the stored epoch plus one. Returns the new epoch. */
async function claim(stores: FlowStores, id: string, hostId: string): Promise<number> {
  const current = (await stores.requests.get(id))!;
  const epoch = (current.epoch ?? 0) + 1;
  const result = await stores.requests.update(id, current.version, {
    status: "running",
    claim: { hostId, until: Date.now() + 2000 },
    epoch,
  });
  expect(result.ok).toBe(true);
  return epoch;
}

async function leaseLost(write: Promise<unknown>): Promise<string> {
  const error = await write.then(
    () => null,
    (caught: unknown) => caught,
  );
  expect(isFlowError(error) && error.code).toBe("lease-lost");
  return (error as Error).message;
}

describe("fenced writes", () => {
  let dir: string;
  const open: FlowStores[] = [];
  const openStores = () => {
    const stores = createFsStores({ dir, retention: false });
    open.push(stores);
    return stores;
  };

  beforeEach(async () => {
    dir = await makeTempDir();
  });
  afterEach(async () => {
    for (const stores of open.splice(0)) await stores.close();
    await removeTempDir(dir);
  });

  it("a claim's epoch is stored, survives a restart and stays when the claim is released", async () => {
    const a = openStores();
    await a.requests.create({ ...request, epoch: 3 });
    expect((await a.requests.get("r1"))?.epoch).toBe(3);
    expect(await claim(a, "r1", "h1")).toBe(4);
    const released = await a.requests.update("r1", 2, { claim: null });
    expect(released.ok).toBe(true);
    await a.close();
    const stored = await openStores().requests.get("r1");
    expect(stored?.epoch).toBe(4);
    expect(stored?.claim).toBeUndefined();
  });

  it("every write under an older epoch than the request's is refused with lease-lost and stores nothing", async () => {
    const stores = openStores();
    await stores.requests.create(request);
    const old = await claim(stores, "r1", "h1");
    const userAddress: ScopeAddress = { scope: "user", scopeId: "u1", bucket: "shared" };
    const fence = { requestId: "r1", epoch: old };
    await stores.scopeState.put(userAddress, { done: 1 }, { type: "absent" }, fence);
    await stores.resources.putState(address, "a", { n: 1 }, { type: "absent" }, fence);
    await stores.resources.putContent(address, "a", "body", fence);
    await stores.requests.appendEvent({ requestId: "r1", type: "x", at: "t", data: {} }, fence);

    const newer = await claim(stores, "r1", "h2");
    const stale = { requestId: "r1", epoch: old };
    const message = await leaseLost(stores.scopeState.put(userAddress, { done: 2 }, { type: "any" }, stale));
    expect(message).toContain('"r1"');
    expect(message).toContain(`epoch ${old}`);
    expect(message).toContain(`epoch ${newer}`);
    await leaseLost(stores.resources.putState(address, "a", { n: 2 }, { type: "any" }, stale));
    await leaseLost(stores.resources.putState(address, "b", { n: 1 }, { type: "absent" }, stale));
    await leaseLost(stores.resources.putContent(address, "a", "stale body", stale));
    await leaseLost(stores.resources.deleteContent(address, "a", stale));
    await leaseLost(stores.resources.deleteState(address, "a", { type: "any" }, stale));
    await leaseLost(stores.requests.appendEvent({ requestId: "r1", type: "y", at: "t", data: {} }, stale));

    expect(await stores.scopeState.get(userAddress)).toEqual({ value: { done: 1 }, version: 1 });
    expect(await stores.resources.getState(address, "a")).toMatchObject({ state: { n: 1 }, version: 1 });
    expect(await stores.resources.getState(address, "b")).toBeNull();
    expect(await stores.resources.getContent(address, "a")).toBe("body");
    expect(await stores.resources.count(address)).toBe(1);
    // The refused event took no seq: the next one is 2.
    expect((await stores.requests.readEvents("r1")).map((e) => e.type)).toEqual(["x"]);
    const next = await stores.requests.appendEvent(
      { requestId: "r1", type: "z", at: "t", data: {} },
      { requestId: "r1", epoch: newer },
    );
    expect(next.seq).toBe(2);
  });

  it("a write under the request's epoch or a later one proceeds; a write without a fence is not checked", async () => {
    const stores = openStores();
    await stores.requests.create(request);
    const epoch = await claim(stores, "r1", "h1");
    expect(
      await stores.resources.putState(address, "a", {}, { type: "absent" }, { requestId: "r1", epoch }),
    ).toEqual({ ok: true, version: 1 });
    expect(
      await stores.resources.deleteState(
        address,
        "a",
        { type: "any" },
        { requestId: "r1", epoch: epoch + 1 },
      ),
    ).toEqual({ ok: true, version: 2 });
    await claim(stores, "r1", "h2");
    expect(await stores.resources.putState(address, "a", {}, { type: "absent" })).toEqual({
      ok: true,
      version: 3,
    });
  });

  it("a fenced write of a request that does not exist is refused", async () => {
    const stores = openStores();
    const message = await leaseLost(
      stores.resources.putState(address, "a", {}, { type: "absent" }, { requestId: "nope", epoch: 0 }),
    );
    expect(message).toContain('"nope"');
    expect(await stores.resources.getState(address, "a")).toBeNull();
    await leaseLost(
      stores.requests.appendEvent(
        { requestId: "nope", type: "x", at: "t", data: {} },
        { requestId: "nope", epoch: 0 },
      ),
    );
    expect(await stores.requests.readEvents("nope")).toEqual([]);
  });

  it("the check reads the epoch on disk: a claim made by another instance over the folder refuses this one's writes", async () => {
    const hostA = openStores();
    await hostA.requests.create(request);
    const epochA = await claim(hostA, "r1", "a");
    await hostA.scopeState.put(address, { done: 0 }, { type: "absent" }, { requestId: "r1", epoch: epochA });
    // Host A pauses; host B opens the same folder (the single-process caveat: one at a time) and takes over.
    const hostB = openStores();
    const epochB = await claim(hostB, "r1", "b");
    await hostB.scopeState.put(
      address,
      { done: 1 },
      { type: "version", version: 1 },
      { requestId: "r1", epoch: epochB },
    );
    await leaseLost(
      hostA.scopeState.put(address, { done: 2 }, { type: "any" }, { requestId: "r1", epoch: epochA }),
    );
    expect(await hostB.scopeState.get(address)).toEqual({ value: { done: 1 }, version: 2 });
  });

  it("a malformed fence or epoch is refused as invalid-request before anything is written", async () => {
    const stores = openStores();
    await stores.requests.create(request);
    for (const fence of [
      null,
      { requestId: 1, epoch: 0 },
      { requestId: "r1", epoch: -1 },
      { requestId: "r1", epoch: 1.5 },
    ]) {
      const error = await stores.resources
        .putState(address, "a", {}, { type: "absent" }, fence as never)
        .catch((caught: unknown) => caught);
      expect(isFlowError(error) && error.code).toBe("invalid-request");
    }
    const error = await stores.requests.update("r1", 1, { epoch: -2 }).catch((caught: unknown) => caught);
    expect(isFlowError(error) && error.code).toBe("invalid-request");
    expect(await stores.resources.getState(address, "a")).toBeNull();
    expect((await stores.requests.get("r1"))?.version).toBe(1);
  });
});
