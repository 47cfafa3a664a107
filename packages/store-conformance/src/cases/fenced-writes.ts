import type { Fence, FlowStores, RequestRecord, ScopeAddress } from "@flowrt/core";
import { hasErrorCode } from "@flowrt/core";
import { expect } from "vitest";
import { requestRecord, sessionAddress } from "../fixtures.js";

/** What a fenced write acts on: one address (scope state, one resource key) and one request's event log. */
export interface FenceTarget {
  address: ScopeAddress;
  key: string;
  /** The request whose claim fences the writes, and whose log the appends go to. */
  requestId: string;
}

/** One store method that takes a fence, as a durable run calls it. */
export interface FencedWrite {
  /** The method, as `stores.<store>.<method>`, named in every failure message. */
  readonly method: string;
  /** Issues the write on a {@link prepareTarget prepared} target, with `fence` when given. */
  write(stores: FlowStores, target: FenceTarget, fence?: Fence): Promise<unknown>;
  /** What the first write to land on a freshly prepared target returns (a version or seq one past the seed). */
  readonly landed: unknown;
}

/** The terminal event a run appends last: a stale host's append of it is what fencing must refuse. */
const appended = (requestId: string) => ({
  requestId,
  type: "request.completed",
  at: new Date().toISOString(),
  data: { output: "stale or not" },
});

/** Every method of the contract that takes a fence; each changes one part of {@link readTarget}. */
export const FENCED_WRITES: readonly FencedWrite[] = [
  {
    method: "scopeState.put",
    write: (stores, t, fence) => stores.scopeState.put(t.address, { n: 1 }, { type: "any" }, fence),
    landed: { ok: true, version: 2 },
  },
  {
    method: "resources.putState",
    write: (stores, t, fence) =>
      stores.resources.putState(t.address, t.key, { n: 1 }, { type: "any" }, fence),
    landed: { ok: true, version: 2 },
  },
  {
    method: "resources.deleteState",
    write: (stores, t, fence) => stores.resources.deleteState(t.address, t.key, { type: "any" }, fence),
    landed: { ok: true, version: 2 },
  },
  {
    method: "resources.putContent",
    write: (stores, t, fence) => stores.resources.putContent(t.address, t.key, "after", fence),
    landed: undefined,
  },
  {
    method: "resources.deleteContent",
    write: (stores, t, fence) => stores.resources.deleteContent(t.address, t.key, fence),
    landed: undefined,
  },
  {
    method: "requests.appendEvent",
    write: (stores, t, fence) => stores.requests.appendEvent(appended(t.requestId), fence),
    landed: expect.objectContaining({ seq: 2, type: "request.completed" }),
  },
];

/**
 * A fresh target holding one of everything, each written once without a fence: scope state and resource state at
 * version 1, content `"before"`, and one event (seq 1) in the request's log.
 */
export async function prepareTarget(stores: FlowStores, requestId: string): Promise<FenceTarget> {
  const target: FenceTarget = { address: sessionAddress(), key: "doc", requestId };
  await stores.scopeState.put(target.address, { n: 0 }, { type: "absent" });
  await stores.resources.putState(target.address, target.key, { n: 0 }, { type: "absent" });
  await stores.resources.putContent(target.address, target.key, "before");
  await stores.requests.appendEvent({
    requestId,
    type: "text.delta",
    at: new Date().toISOString(),
    data: { text: "seed" },
  });
  return target;
}

/** Everything a fenced write could change, read back: a refused write leaves all of it as it was. */
export async function readTarget(stores: FlowStores, target: FenceTarget) {
  return {
    scope: await stores.scopeState.get(target.address),
    // With its accessedAt: a refused write does not count as a use for LRU eviction either.
    state: await stores.resources.getState(target.address, target.key),
    content: await stores.resources.getContent(target.address, target.key),
    events: await stores.requests.readEvents(target.requestId),
  };
}

/** A stored durable request, running under its first claim (epoch 1). */
export async function claimedRequest(stores: FlowStores): Promise<Fence> {
  const record = requestRecord({ status: "queued", durable: true });
  expect(await stores.requests.create(record)).toBe(true);
  const epoch = await claim(stores, record.id, "host-a", { status: "running" });
  return { requestId: record.id, epoch };
}

/** Claims a request as the engine does (a take-over included): the stored epoch plus one. Returns the new epoch. */
export async function claim(
  stores: FlowStores,
  requestId: string,
  hostId: string,
  extra: { status?: "running" } = {},
): Promise<number> {
  const current = await stores.requests.get(requestId);
  if (current === null) throw new Error(`request ${requestId} is not stored`);
  return claimOver(stores, current, hostId, extra);
}

/** {@link claim} over a request as last read (`current`), with no read of its own first. */
export async function claimOver(
  stores: FlowStores,
  current: RequestRecord,
  hostId: string,
  extra: { status?: "running" } = {},
): Promise<number> {
  const epoch = (current.epoch ?? 0) + 1;
  const result = await stores.requests.update(current.id, current.version, {
    ...extra,
    claim: { hostId, until: Date.now() + 60_000 },
    epoch,
  });
  expect(result, `the claim at epoch ${epoch} of ${current.id}`).toEqual({
    ok: true,
    version: current.version + 1,
  });
  return epoch;
}

/**
 * Expects `write` to be refused with `lease-lost`, its message naming the request and, when a newer claim is
 * stored (`storedEpoch`), both epochs.
 */
export async function expectLeaseLost(
  label: string,
  write: Promise<unknown>,
  fence: Fence,
  storedEpoch?: number,
): Promise<void> {
  const outcome = await write.then(
    (value) => ({ refused: false as const, value }),
    (error: unknown) => ({ refused: true as const, error }),
  );
  if (!outcome.refused) {
    throw new Error(`${label}: a write fenced by ${JSON.stringify(fence)} was not refused`);
  }
  const { error } = outcome;
  expect(hasErrorCode(error, "lease-lost"), `${label}: refused with lease-lost, got ${String(error)}`).toBe(
    true,
  );
  const message = (error as Error).message;
  expect(message, `${label}: the message names the request`).toContain(fence.requestId);
  if (storedEpoch !== undefined) {
    for (const epoch of [fence.epoch, storedEpoch])
      expect(message, `${label}: the message names epoch ${epoch}`).toMatch(new RegExp(`\\b${epoch}\\b`));
  }
}
