import type { RequestRecord } from "@flowrt/core";
import { expect } from "vitest";
import { defineCase } from "../case.js";
import { isoAt, requestRecord } from "../fixtures.js";

const HOUR = 3_600_000;

/**
 * Retention acts on the whole store, so these cases also remove finished requests other cases left
 * behind; that is why the suite should run against a store (or database) used only for testing.
 */
export const retentionCases = [
  defineCase(
    "retention/max-age",
    "purgeFinished removes finished requests older than maxAgeMs, with their events",
    async (stores) => {
      const now = Date.now();
      const finished = (status: RequestRecord["status"], completedAgoMs: number) =>
        requestRecord({
          status,
          createdAt: isoAt(now, -completedAgoMs - 1000),
          completedAt: isoAt(now, -completedAgoMs),
        });
      const oldCompleted = finished("completed", 3 * HOUR);
      const oldFailed = finished("failed", 2 * HOUR);
      const oldAborted = finished("aborted", 2 * HOUR);
      const recent = finished("completed", 60_000);
      const stillRunning = requestRecord({ status: "running", createdAt: isoAt(now, -10 * HOUR) });
      const stillQueued = requestRecord({ status: "queued", createdAt: isoAt(now, -10 * HOUR) });
      for (const record of [oldCompleted, oldFailed, oldAborted, recent, stillRunning, stillQueued]) {
        await stores.requests.create(record);
        await stores.requests.appendEvent({
          requestId: record.id,
          type: "request.started",
          at: record.createdAt,
          data: {},
        });
      }

      const removed = await stores.requests.purgeFinished({ maxAgeMs: HOUR, now });
      expect(removed).toBeGreaterThanOrEqual(3);
      for (const gone of [oldCompleted, oldFailed, oldAborted]) {
        expect(await stores.requests.get(gone.id)).toBeNull();
        expect(await stores.requests.readEvents(gone.id)).toEqual([]);
      }
      for (const kept of [recent, stillRunning, stillQueued]) {
        expect(await stores.requests.get(kept.id)).toEqual(kept);
        expect(await stores.requests.readEvents(kept.id)).toHaveLength(1);
      }
      expect(await stores.requests.purgeFinished({})).toBe(0);
    },
  ),

  defineCase(
    "retention/max-count",
    "purgeFinished keeps only the newest maxCount finished requests",
    async (stores) => {
      const now = Date.now();
      // Completed "in the future" so that these are the newest finished requests in the store.
      const older = requestRecord({ status: "completed", completedAt: isoAt(now, HOUR) });
      const newer = requestRecord({ status: "failed", completedAt: isoAt(now, HOUR + 1000) });
      const running = requestRecord({ status: "running" });
      for (const record of [older, newer, running]) await stores.requests.create(record);

      expect(typeof (await stores.requests.purgeFinished({ maxCount: 2, now }))).toBe("number");
      expect(await stores.requests.get(older.id)).toEqual(older);
      expect(await stores.requests.purgeFinished({ maxCount: 1, now })).toBeGreaterThanOrEqual(1);
      expect(await stores.requests.get(older.id)).toBeNull();
      expect(await stores.requests.get(newer.id)).toEqual(newer);
      expect(await stores.requests.get(running.id)).toEqual(running);
      expect(await stores.requests.purgeFinished({ maxCount: 1, now })).toBe(0);
    },
  ),
] as const;
