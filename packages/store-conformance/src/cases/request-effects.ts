import type { ActiveRequestEntry, FlowStores, RequestEvent, RequestRecord } from "@flowrt/core";
import { expect } from "vitest";
import { defineCase } from "../case.js";
import { eventually, requestRecord, sleep } from "../fixtures.js";

function newEvent(requestId: string, type: string, data: RequestEvent["data"] = {}) {
  return { requestId, type, at: new Date().toISOString(), data };
}

function activeEntry(request: RequestRecord, startedAt = new Date().toISOString()): ActiveRequestEntry {
  return {
    requestId: request.id,
    sessionId: request.sessionId,
    flowId: request.flowId,
    userId: request.userId,
    action: request.action,
    startedAt,
  };
}

/** Subscribes to a request's events and waits until a subscription that spans processes is live. */
async function listen(stores: FlowStores, requestId: string) {
  const received: RequestEvent[] = [];
  const unsubscribe = stores.requests.subscribe(requestId, (event) => received.push(event));
  await sleep(50);
  return { received, unsubscribe };
}

/** `update(id, version, patch, effects)`: the active-registry change and events written with the patch, only when it applies. */
export const requestEffectCases = [
  defineCase(
    "request-effects/with-update",
    "an update's effects land with its patch: events get the next seqs in order and reach subscribers, the active entry is set, then cleared by a terminal update",
    async (stores) => {
      const request = requestRecord();
      await stores.requests.create(request);
      // Events already in the log: the update's come after them.
      const existing = await stores.requests.appendEvent(newEvent(request.id, "request.queued"));
      const { received, unsubscribe } = await listen(stores, request.id);
      try {
        const entry = activeEntry(request);
        const started = newEvent(request.id, "request.started", { attempt: 1 });
        const progress = newEvent(request.id, "block.started", { block: "b1" });
        const claim = await stores.requests.update(
          request.id,
          1,
          { status: "running", startedAt: started.at, claim: { hostId: "h1", until: Date.now() + 60_000 } },
          { active: entry, events: [started, progress] },
        );
        expect(claim).toEqual({ ok: true, version: 2 });
        const running = await stores.requests.get(request.id);
        expect(running?.status).toBe("running");
        expect(running?.version).toBe(2);
        const afterClaim = await stores.requests.readEvents(request.id);
        expect(afterClaim).toEqual([existing, { ...started, seq: 2 }, { ...progress, seq: 3 }]);
        expect(await stores.requests.listActive({ userId: request.userId })).toEqual([entry]);
        await eventually(() => expect(received).toEqual(afterClaim.slice(1)));

        // A plain append after the update takes the next seq.
        const between = await stores.requests.appendEvent(newEvent(request.id, "text.delta", { text: "hi" }));
        expect(between.seq).toBe(4);

        // The end: the last events (the terminal one last) and leaving the registry, with the terminal status.
        const blockDone = newEvent(request.id, "block.completed", { block: "b1" });
        const completed = newEvent(request.id, "request.completed", { output: { n: 2 } });
        const end = await stores.requests.update(
          request.id,
          2,
          { status: "completed", output: { n: 2 }, completedAt: completed.at, claim: null },
          { active: null, events: [blockDone, completed] },
        );
        expect(end).toEqual({ ok: true, version: 3 });
        const finished = await stores.requests.get(request.id);
        expect(finished?.status).toBe("completed");
        expect(finished?.output).toEqual({ n: 2 });
        expect(finished?.claim).toBeUndefined();
        expect(await stores.requests.listActive({ userId: request.userId })).toEqual([]);
        const all = await stores.requests.readEvents(request.id);
        expect(all.map((event) => event.seq)).toEqual([1, 2, 3, 4, 5, 6]);
        expect(all.slice(4)).toEqual([
          { ...blockDone, seq: 5 },
          { ...completed, seq: 6 },
        ]);
        expect(all.at(-1)?.type).toBe("request.completed");
        await eventually(() => expect(received).toEqual(all.slice(1)));
      } finally {
        unsubscribe();
      }
    },
  ),

  defineCase(
    "request-effects/each-alone",
    "an update may carry only an active change or only events, and an entry replaces the request's entry",
    async (stores) => {
      const request = requestRecord();
      await stores.requests.create(request);
      const first = activeEntry(request, "2026-01-01T00:00:00.000Z");
      expect(await stores.requests.update(request.id, 1, { status: "running" }, { active: first })).toEqual({
        ok: true,
        version: 2,
      });
      expect(await stores.requests.listActive({ userId: request.userId })).toEqual([first]);
      expect(await stores.requests.readEvents(request.id)).toEqual([]);

      // A take-over: the entry is replaced, not doubled.
      const second = { ...first, startedAt: "2026-01-02T00:00:00.000Z" };
      const retried = newEvent(request.id, "request.retried");
      expect(
        await stores.requests.update(request.id, 2, { epoch: 2 }, { active: second, events: [retried] }),
      ).toEqual({ ok: true, version: 3 });
      expect(await stores.requests.listActive({ userId: request.userId })).toEqual([second]);

      // Events alone leave the entry; an empty list appends nothing.
      const note = newEvent(request.id, "text.delta", { text: "x" });
      expect(await stores.requests.update(request.id, 3, {}, { events: [note] })).toEqual({
        ok: true,
        version: 4,
      });
      expect(await stores.requests.update(request.id, 4, {}, { events: [] })).toEqual({
        ok: true,
        version: 5,
      });
      expect(await stores.requests.listActive({ userId: request.userId })).toEqual([second]);
      expect(await stores.requests.readEvents(request.id)).toEqual([
        { ...retried, seq: 1 },
        { ...note, seq: 2 },
      ]);
      expect((await stores.requests.get(request.id))?.epoch).toBe(2);
    },
  ),

  defineCase(
    "request-effects/stale-version",
    "an update whose version moved writes none of its effects: no event, no active change, no notification",
    async (stores) => {
      const request = requestRecord();
      await stores.requests.create(request);
      const entry = activeEntry(request);
      await stores.requests.markActive(entry);
      const existing = await stores.requests.appendEvent(newEvent(request.id, "request.started"));
      expect(await stores.requests.update(request.id, 1, { status: "running" })).toEqual({
        ok: true,
        version: 2,
      });

      const { received, unsubscribe } = await listen(stores, request.id);
      try {
        // Stale (version 1 is gone): leaving the registry and the terminal events must not happen.
        const stale = await stores.requests.update(
          request.id,
          1,
          { status: "completed" },
          {
            active: null,
            events: [newEvent(request.id, "block.completed"), newEvent(request.id, "request.completed")],
          },
        );
        expect(stale.ok).toBe(false);
        if (!stale.ok) expect(stale.current?.version).toBe(2);
        // Stale the other way too: a newer entry must not replace the stored one.
        const newer = { ...entry, startedAt: "2030-01-01T00:00:00.000Z" };
        const ahead = await stores.requests.update(
          request.id,
          3,
          { epoch: 5 },
          { active: newer, events: [newEvent(request.id, "request.retried")] },
        );
        expect(ahead.ok).toBe(false);

        // A request that is not stored: nothing appended or listed for it either.
        const ghost = requestRecord();
        expect(
          await stores.requests.update(
            ghost.id,
            1,
            { status: "running" },
            { active: activeEntry(ghost), events: [newEvent(ghost.id, "request.started")] },
          ),
        ).toEqual({ ok: false, current: null });
        expect(await stores.requests.readEvents(ghost.id)).toEqual([]);
        expect(await stores.requests.listActive({ userId: ghost.userId })).toEqual([]);

        const stored = await stores.requests.get(request.id);
        expect(stored?.status).toBe("running");
        expect(stored?.version).toBe(2);
        expect(stored?.epoch).toBeUndefined();
        expect(await stores.requests.readEvents(request.id)).toEqual([existing]);
        expect(await stores.requests.listActive({ userId: request.userId })).toEqual([entry]);
        // The next append still takes seq 2: the refused events used none.
        expect((await stores.requests.appendEvent(newEvent(request.id, "text.delta"))).seq).toBe(2);
        await eventually(() => expect(received.map((event) => event.seq)).toEqual([2]));
        await sleep(100);
        expect(received.map((event) => event.type)).toEqual(["text.delta"]);
      } finally {
        unsubscribe();
      }
    },
  ),

  defineCase(
    "request-effects/racing-updates",
    "of updates racing from one version, only the winner's events and active change are written",
    async (stores) => {
      const request = requestRecord();
      await stores.requests.create(request);
      const racers = Array.from({ length: 6 }, (_, i) => ({
        entry: { ...activeEntry(request), startedAt: `2026-01-01T00:00:0${i}.000Z` },
        event: newEvent(request.id, "request.started", { racer: i }),
      }));
      const results = await Promise.all(
        racers.map(({ entry, event }) =>
          stores.requests.update(request.id, 1, { status: "running" }, { active: entry, events: [event] }),
        ),
      );
      const winners = results.flatMap((result, i) => (result.ok ? [i] : []));
      expect(winners).toHaveLength(1);
      const winner = racers[winners[0]!]!;
      expect(await stores.requests.readEvents(request.id)).toEqual([{ ...winner.event, seq: 1 }]);
      expect(await stores.requests.listActive({ userId: request.userId })).toEqual([winner.entry]);
    },
  ),
] as const;
