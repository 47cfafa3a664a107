import type { RequestRecord } from "@flowrt/core";
import { createMemoryStores } from "@flowrt/store-memory";
import { describe, expect, it } from "vitest";
import { durableRequest, durableSession } from "../testing/durable-flow.js";
import type { RequestLifecycle } from "./lifecycle.js";
import { recoverRequests } from "./recovery.js";

const LEASE_MS = 2_000;

/** A store holding one durable request queued `ageMs` ago; which records one pass launches. */
async function pass(ageMs: number, queuedGraceMs?: number): Promise<string[]> {
  const stores = createMemoryStores({ retention: false });
  await stores.sessions.create(durableSession());
  const createdAt = new Date(Date.now() - ageMs).toISOString();
  await stores.requests.create(durableRequest({ id: "r1", status: "queued", durable: true }, createdAt));
  const launched: string[] = [];
  const count = await recoverRequests({
    stores,
    lifecycle: {} as RequestLifecycle,
    leaseMs: LEASE_MS,
    isRunningHere: () => false,
    launch: (record: RequestRecord) => launched.push(record.id),
    ...(queuedGraceMs === undefined ? {} : { queuedGraceMs }),
  });
  expect(count).toBe(launched.length);
  await stores.close();
  return launched;
}

describe("a recovery pass and durable requests still queued", () => {
  it("the pass at start (no grace) takes a request queued a moment ago", async () => {
    expect(await pass(0)).toEqual(["r1"]);
  });

  it("a periodic pass leaves a request queued less than a lease ago to the host that accepted it", async () => {
    expect(await pass(0, LEASE_MS)).toEqual([]);
    expect(await pass(LEASE_MS - 200, LEASE_MS)).toEqual([]);
  });

  it("a periodic pass takes a request queued longer than a lease ago (its host died before it ran)", async () => {
    expect(await pass(LEASE_MS + 1, LEASE_MS)).toEqual(["r1"]);
  });
});
