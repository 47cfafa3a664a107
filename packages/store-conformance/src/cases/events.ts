import type { RequestEvent } from "@flowrt/core";
import { expect } from "vitest";
import { defineCase } from "../case.js";
import { eventually, requestRecord, sleep, uid } from "../fixtures.js";

function newEvent(requestId: string, type: string, data: RequestEvent["data"] = {}) {
  return { requestId, type, at: new Date().toISOString(), data };
}

export const eventCases = [
  defineCase(
    "events/append-read",
    "appendEvent assigns seq from 1 without gaps; readEvents reads after a seq",
    async (stores) => {
      const request = requestRecord();
      await stores.requests.create(request);
      expect(await stores.requests.readEvents(request.id)).toEqual([]);

      const first = newEvent(request.id, "request.started", { a: 1 });
      const appended = await stores.requests.appendEvent(first);
      expect(appended).toEqual({ ...first, seq: 1 });
      const second = await stores.requests.appendEvent(newEvent(request.id, "text.delta", { text: "hi" }));
      const third = await stores.requests.appendEvent(
        newEvent(request.id, "request.completed", { nested: { x: [1] } }),
      );
      expect([second.seq, third.seq]).toEqual([2, 3]);

      expect(await stores.requests.readEvents(request.id)).toEqual([appended, second, third]);
      expect(await stores.requests.readEvents(request.id, 0)).toEqual([appended, second, third]);
      expect(await stores.requests.readEvents(request.id, 1)).toEqual([second, third]);
      expect(await stores.requests.readEvents(request.id, 1, 1)).toEqual([second]);
      expect(await stores.requests.readEvents(request.id, 3)).toEqual([]);
      expect(await stores.requests.readEvents(uid("request"))).toEqual([]);

      const other = requestRecord();
      await stores.requests.create(other);
      expect((await stores.requests.appendEvent(newEvent(other.id, "request.started"))).seq).toBe(1);
    },
  ),

  defineCase("events/copies", "events read back are copies", async (stores) => {
    const request = requestRecord();
    await stores.requests.create(request);
    const data = { items: [1, 2] };
    const appended = await stores.requests.appendEvent(newEvent(request.id, "state_change", data));
    data.items.push(3);
    appended.data.items = [];
    const [read] = await stores.requests.readEvents(request.id);
    expect(read?.data).toEqual({ items: [1, 2] });
    (read!.data.items as number[]).push(9);
    expect((await stores.requests.readEvents(request.id))[0]?.data).toEqual({ items: [1, 2] });
    // What appendEvent hands back is the data as stored (JSON), the same as a read gives.
    const odd = { at: new Date(0), gone: undefined } as unknown as Record<string, never>;
    const stored = await stores.requests.appendEvent(newEvent(request.id, "state_change", odd));
    expect(stored.data).toStrictEqual({ at: "1970-01-01T00:00:00.000Z" });
    expect((await stores.requests.readEvents(request.id, 1))[0]?.data).toStrictEqual(stored.data);
  }),

  defineCase(
    "events/concurrent-append",
    "concurrent appends to one request never share or skip a seq",
    async (stores) => {
      const request = requestRecord();
      await stores.requests.create(request);
      const appended = await Promise.all(
        Array.from({ length: 25 }, (_, i) =>
          stores.requests.appendEvent(newEvent(request.id, "text.delta", { i })),
        ),
      );
      const seqs = appended.map((e) => e.seq).sort((a, b) => a - b);
      expect(seqs).toEqual(Array.from({ length: 25 }, (_, i) => i + 1));
      const read = await stores.requests.readEvents(request.id);
      expect(read.map((e) => e.seq)).toEqual(seqs);
      // Each appended event is stored under the seq it was given.
      for (const event of appended) expect(read[event.seq - 1]).toEqual(event);
    },
  ),

  defineCase(
    "events/subscribe",
    "subscribers get live events of their request in seq order until they unsubscribe",
    async (stores) => {
      const request = requestRecord();
      const other = requestRecord();
      await stores.requests.create(request);
      await stores.requests.create(other);

      const received: RequestEvent[] = [];
      const unsubscribe = stores.requests.subscribe(request.id, (event) => received.push(event));
      try {
        // Subscriptions that span processes may need a moment to become live.
        await sleep(50);
        const a = await stores.requests.appendEvent(newEvent(request.id, "block.started", { i: 1 }));
        await stores.requests.appendEvent(newEvent(other.id, "block.started"));
        const b = await stores.requests.appendEvent(newEvent(request.id, "block.completed", { i: 2 }));
        await eventually(() => expect(received).toEqual([a, b]));
      } finally {
        unsubscribe();
      }
      await stores.requests.appendEvent(newEvent(request.id, "request.completed"));
      await sleep(100);
      expect(received).toHaveLength(2);
      unsubscribe();
    },
  ),
] as const;
