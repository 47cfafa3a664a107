/**
 * Where a subscriber starts when the store itself appended to the request just before: the append's notification
 * arrives on the listening connection after the subscribe, and must not deliver an event that committed before it.
 */
import { randomUUID } from "node:crypto";
import type { RequestEvent } from "@flowrt/core";
import { afterAll, afterEach, beforeEach, describe, expect, it } from "vitest";
import { backend, closeSharedPglite, createTestStores, type TestStores } from "./testing/databases.js";

const ROUNDS = 50;
const delay = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const event = (requestId: string, type: string) => ({
  requestId,
  type,
  at: new Date().toISOString(),
  data: {},
});

describe(`a subscriber's start after the store's own append (${backend})`, () => {
  let db: TestStores;
  beforeEach(async () => {
    db = await createTestStores();
  });
  afterEach(() => db.destroy());
  afterAll(() => closeSharedPglite());

  it(`an event this store appended before the subscribe is never delivered; the next one is (${ROUNDS} rounds)`, async () => {
    const { requests } = db.stores;
    // The listening connection is open first, so every append below notifies while a subscriber exists.
    const warm = requests.subscribe(`warm-${randomUUID()}`, () => {});
    await delay(200);
    try {
      const received: Array<{ round: number; seq: number }> = [];
      const requestIds = Array.from({ length: ROUNDS }, () => `request-${randomUUID()}`);
      const unsubscribes = [];
      for (const [round, requestId] of requestIds.entries()) {
        await requests.appendEvent(event(requestId, "seed"));
        // At once: the seed's notification is still on its way.
        unsubscribes.push(
          requests.subscribe(requestId, (e: RequestEvent) => received.push({ round, seq: e.seq })),
        );
      }
      await delay(300);
      expect(received).toEqual([]);
      for (const requestId of requestIds) await requests.appendEvent(event(requestId, "after"));
      await expect.poll(() => received.length, { timeout: 5_000 }).toBe(ROUNDS);
      expect(received.map((r) => r.seq)).toEqual(requestIds.map(() => 2));
      for (const unsubscribe of unsubscribes) unsubscribe();
    } finally {
      warm();
    }
  });
});
