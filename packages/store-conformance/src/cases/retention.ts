import { type RequestRecord, SHARED_BUCKET } from "@flowrt/core";
import { expect } from "vitest";
import { defineCase } from "../case.js";
import { isoAt, requestRecord, sessionAddress, sessionRecord, uid } from "../fixtures.js";

const HOUR = 3_600_000;

/**
 * Retention acts on the whole store, so these cases also remove finished requests other cases left
 * behind; that is why the suite should run against a store (or database) used only for testing.
 */
export const retentionCases = [
  defineCase(
    "retention/max-age",
    "purgeFinished removes finished requests older than maxAgeMs, with their events and active entries",
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
        // A finished request's log ends with its terminal event (a store spanning processes takes no other
        // event for it); an unfinished one's holds its start.
        const finished = record.status !== "running" && record.status !== "queued";
        await stores.requests.appendEvent({
          requestId: record.id,
          type: finished ? `request.${record.status}` : "request.started",
          at: record.completedAt ?? record.createdAt,
          data: {},
        });
      }

      // One left listed as active (its host died before leaving the registry): retention removes that too.
      await stores.requests.markActive({
        requestId: oldFailed.id,
        sessionId: oldFailed.sessionId,
        flowId: oldFailed.flowId,
        userId: oldFailed.userId,
        action: oldFailed.action,
        startedAt: oldFailed.createdAt,
      });
      const removed = await stores.requests.purgeFinished({ maxAgeMs: HOUR, now });
      expect((await stores.requests.listActive({})).map((entry) => entry.requestId)).not.toContain(
        oldFailed.id,
      );
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

      // Finished in the same millisecond: the greater id counts as the newer.
      const same = isoAt(now, HOUR + 2000);
      const tiedLow = requestRecord({ id: `${uid("tie")}-a`, status: "completed", completedAt: same });
      const tiedHigh = requestRecord({
        id: `${tiedLow.id.slice(0, -2)}-b`,
        status: "completed",
        completedAt: same,
      });
      for (const record of [tiedHigh, tiedLow]) await stores.requests.create(record);
      expect(await stores.requests.purgeFinished({ maxCount: 1, now })).toBeGreaterThanOrEqual(1);
      expect(await stores.requests.get(tiedHigh.id)).toEqual(tiedHigh);
      expect(await stores.requests.get(tiedLow.id)).toBeNull();
    },
  ),

  defineCase(
    "retention/ephemeral-sessions",
    "purgeFinished removes an ephemeral session with its last stored request, with its session state and session-scope resources in every bucket",
    async (stores) => {
      const now = Date.now();
      const old = { createdAt: isoAt(now, -3 * HOUR), completedAt: isoAt(now, -2 * HOUR) };
      const gone = sessionRecord({ metadata: { ephemeral: true } });
      const unmarked = sessionRecord({ metadata: { ephemeral: "true" } });
      const stillRunning = sessionRecord({ metadata: { ephemeral: true } });
      const withRecent = sessionRecord({ metadata: { ephemeral: true } });
      const sessions = [gone, unmarked, stillRunning, withRecent];
      for (const session of sessions) {
        await stores.sessions.create(session);
        for (const bucket of [SHARED_BUCKET, "flow-a"]) {
          const address = sessionAddress(session.id, bucket);
          await stores.scopeState.put(address, { n: 1 }, { type: "absent" });
          await stores.resources.putState(address, "notes/a", { title: "a" }, { type: "absent" });
          await stores.resources.putContent(address, "notes/a", "body");
        }
      }
      const requests = [
        requestRecord({ sessionId: gone.id, status: "completed", ...old }),
        requestRecord({ sessionId: gone.id, status: "failed", ...old }),
        requestRecord({ sessionId: unmarked.id, status: "completed", ...old }),
        requestRecord({ sessionId: stillRunning.id, status: "completed", ...old }),
        requestRecord({ sessionId: stillRunning.id, status: "running", createdAt: old.createdAt }),
        requestRecord({ sessionId: withRecent.id, status: "completed", ...old }),
        requestRecord({ sessionId: withRecent.id, status: "completed", completedAt: isoAt(now, -1000) }),
      ];
      for (const record of requests) await stores.requests.create(record);

      expect(await stores.requests.purgeFinished({ maxAgeMs: HOUR, now })).toBeGreaterThanOrEqual(5);
      expect(await stores.sessions.get(gone.id)).toBeNull();
      for (const bucket of [SHARED_BUCKET, "flow-a"]) {
        const address = sessionAddress(gone.id, bucket);
        expect(await stores.scopeState.get(address)).toBeNull();
        expect(await stores.resources.getState(address, "notes/a")).toBeNull();
        expect(await stores.resources.getContent(address, "notes/a")).toBeNull();
      }
      // Not marked (the mark is the JSON value `true`), or a request still stored: kept, with their data.
      for (const kept of [unmarked, stillRunning, withRecent]) {
        expect(await stores.sessions.get(kept.id)).toEqual(kept);
        for (const bucket of [SHARED_BUCKET, "flow-a"]) {
          const address = sessionAddress(kept.id, bucket);
          expect((await stores.scopeState.get(address))?.value).toEqual({ n: 1 });
          expect((await stores.resources.getState(address, "notes/a"))?.state).toEqual({ title: "a" });
          expect(await stores.resources.getContent(address, "notes/a")).toBe("body");
        }
      }
    },
  ),

  defineCase(
    "retention/ephemeral-request-first",
    "an ephemeral session counts the requests stored before it was: kept while one is stored, removed with the last",
    async (stores) => {
      const now = Date.now();
      const old = { createdAt: isoAt(now, -3 * HOUR), completedAt: isoAt(now, -2 * HOUR) };
      const running = sessionRecord({ metadata: { ephemeral: true } });
      const finished = sessionRecord({ metadata: { ephemeral: true } });
      // Each session's first request is stored before the session itself.
      await stores.requests.create(
        requestRecord({ sessionId: running.id, status: "running", createdAt: old.createdAt }),
      );
      await stores.requests.create(requestRecord({ sessionId: finished.id, status: "completed", ...old }));
      for (const session of [running, finished]) {
        await stores.sessions.create(session);
        await stores.resources.putState(
          sessionAddress(session.id),
          "notes/a",
          { title: "a" },
          { type: "absent" },
        );
      }
      await stores.requests.create(requestRecord({ sessionId: running.id, status: "completed", ...old }));

      await stores.requests.purgeFinished({ maxAgeMs: HOUR, now });
      expect(await stores.sessions.get(running.id)).toEqual(running);
      expect((await stores.resources.getState(sessionAddress(running.id), "notes/a"))?.state).toEqual({
        title: "a",
      });
      expect(await stores.sessions.get(finished.id)).toBeNull();
      expect(await stores.resources.getState(sessionAddress(finished.id), "notes/a")).toBeNull();
    },
  ),
] as const;
