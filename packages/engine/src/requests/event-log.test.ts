import type { RequestEvent } from "@flowrt/core";
import { createMemoryStores } from "@flowrt/store-memory";
import { describe, expect, it } from "vitest";
import { streamRequestEvents } from "./event-log.js";

async function collect(iterable: AsyncIterable<RequestEvent>) {
  const out: RequestEvent[] = [];
  for await (const event of iterable) out.push(event);
  return out;
}

const append = (stores: ReturnType<typeof createMemoryStores>, requestId: string, type: string) =>
  stores.requests.appendEvent({ requestId, type, at: new Date().toISOString(), data: {} });

describe("request event stream", () => {
  it("a finished request's stream waits for the terminal event written just after the status", async () => {
    const stores = createMemoryStores();
    await append(stores, "r1", "request.started");
    setTimeout(() => void append(stores, "r1", "request.completed"), 100);
    const events = await collect(
      streamRequestEvents(stores.requests, "r1", { isFinished: async () => true, terminalGraceMs: 2_000 }),
    );
    expect(events.map((e) => e.type)).toEqual(["request.started", "request.completed"]);
    await stores.close();
  });

  it("ends after the grace period when the terminal event never comes (its host died in between)", async () => {
    const stores = createMemoryStores();
    await append(stores, "r2", "request.started");
    const events = await collect(
      streamRequestEvents(stores.requests, "r2", { isFinished: async () => true, terminalGraceMs: 100 }),
    );
    expect(events.map((e) => e.type)).toEqual(["request.started"]);
    await stores.close();
  });

  it("a resume after the terminal event ends at once", async () => {
    const stores = createMemoryStores();
    await append(stores, "r3", "request.started");
    await append(stores, "r3", "request.completed");
    const started = Date.now();
    const events = await collect(
      streamRequestEvents(stores.requests, "r3", {
        afterSeq: 2,
        isFinished: async () => true,
        terminalGraceMs: 5_000,
      }),
    );
    expect(events).toEqual([]);
    expect(Date.now() - started).toBeLessThan(2_000);
    await stores.close();
  });

  it("a resume past the end of a finished request's log ends at once, whatever the seq", async () => {
    const stores = createMemoryStores();
    for (const type of ["request.started", "block.started", "block.completed", "request.completed"])
      await append(stores, "r5", type);
    for (const afterSeq of [5, 6, 999]) {
      const started = Date.now();
      const events = await collect(
        streamRequestEvents(stores.requests, "r5", {
          afterSeq,
          isFinished: async () => true,
          terminalGraceMs: 5_000,
        }),
      );
      expect(events).toEqual([]);
      expect(Date.now() - started).toBeLessThan(1_000);
    }
    await stores.close();
  });

  it("a finished request whose terminal event never came ends at once for a resume past its log", async () => {
    const stores = createMemoryStores();
    await append(stores, "r6", "request.started");
    const started = Date.now();
    const events = await collect(
      streamRequestEvents(stores.requests, "r6", {
        afterSeq: 3,
        isFinished: async () => true,
        terminalGraceMs: 5_000,
      }),
    );
    expect(events).toEqual([]);
    expect(Date.now() - started).toBeLessThan(1_000);
    await stores.close();
  });

  it("replays after a seq, then follows live appends in order, without gaps or repeats", async () => {
    const stores = createMemoryStores();
    for (const type of ["request.started", "block.started", "text.delta"]) await append(stores, "r4", type);
    const live = (async () => {
      for (const type of ["text.delta", "block.completed", "request.completed"]) {
        await new Promise((r) => setTimeout(r, 10));
        await append(stores, "r4", type);
      }
    })();
    const events = await collect(streamRequestEvents(stores.requests, "r4", { afterSeq: 1 }));
    await live;
    expect(events.map((e) => e.seq)).toEqual([2, 3, 4, 5, 6]);
    expect(events.at(-1)?.type).toBe("request.completed");
    await stores.close();
  });
});
