import type { RequestEvent } from "@flowrt/core";
import { afterEach, describe, expect, it, vi } from "vitest";
import { formatSseEvent, SSE_PING, sseFrames, sseStream } from "./sse.js";

const event = (seq: number, type = "text.delta", data: Record<string, unknown> = {}): RequestEvent =>
  ({ seq, type, requestId: "r1", at: "2026-01-01T00:00:00.000Z", data }) as RequestEvent;

/** Events pushed by the test, ending when `end()` is called; records whether the consumer returned it. */
function controlled() {
  const queue: RequestEvent[] = [];
  let wake: (() => void) | undefined;
  let ended = false;
  const state = { returned: false };
  async function* iterate(): AsyncGenerator<RequestEvent> {
    try {
      for (;;) {
        while (queue.length > 0) yield queue.shift()!;
        if (ended) return;
        await new Promise<void>((resolve) => {
          wake = resolve;
        });
      }
    } finally {
      state.returned = true;
    }
  }
  return {
    events: iterate(),
    state,
    push(e: RequestEvent) {
      queue.push(e);
      wake?.();
    },
    end() {
      ended = true;
      wake?.();
    },
  };
}

afterEach(() => {
  vi.useRealTimers();
});

describe("sseFrames", () => {
  it("sends each event as its exact id/event/data lines and ends with the events", async () => {
    async function* three() {
      yield event(1, "request.started");
      yield event(2, "text.delta", { delta: "hé\nllo", seq: 99 });
      yield event(3, "request.completed", { output: { ok: true } });
    }
    const frames: string[] = [];
    for await (const frame of sseFrames(three(), 15_000)) frames.push(frame);
    expect(frames).toEqual([
      'id: 1\nevent: request.started\ndata: {"seq":1,"type":"request.started","requestId":"r1","at":"2026-01-01T00:00:00.000Z"}\n\n',
      // The envelope wins over a payload field of the same name; a newline in data stays escaped in JSON.
      'id: 2\nevent: text.delta\ndata: {"seq":2,"type":"text.delta","requestId":"r1","at":"2026-01-01T00:00:00.000Z","delta":"hé\\nllo"}\n\n',
      formatSseEvent(event(3, "request.completed", { output: { ok: true } })),
    ]);
  });

  it("sends a ping whenever the stream has been idle for heartbeatMs, and none while events flow", async () => {
    vi.useFakeTimers();
    const source = controlled();
    const iterator = sseFrames(source.events, 1000)[Symbol.asyncIterator]();
    const first = iterator.next();
    await vi.advanceTimersByTimeAsync(999);
    source.push(event(1));
    expect((await first).value).toBe(formatSseEvent(event(1)));
    const second = iterator.next();
    await vi.advanceTimersByTimeAsync(1000);
    expect(await second).toEqual({ done: false, value: SSE_PING });
    const third = iterator.next();
    await vi.advanceTimersByTimeAsync(1000);
    expect(await third).toEqual({ done: false, value: SSE_PING });
    // The event awaited across the pings is the same one: nothing is lost or asked for twice.
    const fourth = iterator.next();
    source.push(event(2));
    expect((await fourth).value).toBe(formatSseEvent(event(2)));
    const fifth = iterator.next();
    source.end();
    expect(await fifth).toEqual({ done: true, value: undefined });
    expect(vi.getTimerCount()).toBe(0);
  });

  it("ends when the signal aborts, leaving no timer or abort listener behind", async () => {
    vi.useFakeTimers();
    const source = controlled();
    const controller = new AbortController();
    const added = vi.spyOn(controller.signal, "addEventListener");
    const removed = vi.spyOn(controller.signal, "removeEventListener");
    const frames: string[] = [];
    const done = (async () => {
      for await (const frame of sseFrames(source.events, 1000, controller.signal)) frames.push(frame);
    })();
    await vi.advanceTimersByTimeAsync(1500);
    controller.abort();
    await done;
    expect(frames).toEqual([SSE_PING]);
    expect(vi.getTimerCount()).toBe(0);
    expect(removed).toHaveBeenCalledTimes(added.mock.calls.length);
    // The events' iterator is returned once its outstanding `next` settles.
    source.end();
    await vi.waitFor(() => expect(source.state.returned).toBe(true));
  });

  it("sends nothing for a signal that has already aborted", async () => {
    const source = controlled();
    const controller = new AbortController();
    controller.abort();
    const frames: string[] = [];
    for await (const frame of sseFrames(source.events, 1000, controller.signal)) frames.push(frame);
    expect(frames).toEqual([]);
  });

  it("returns the events' iterator when the consumer stops early", async () => {
    const source = controlled();
    source.push(event(1));
    source.push(event(2));
    for await (const _frame of sseFrames(source.events, 1000)) break;
    expect(source.state.returned).toBe(true);
  });

  it("passes an error of the events on to the consumer", async () => {
    async function* failing(): AsyncGenerator<RequestEvent> {
      yield event(1);
      throw new Error("store failed");
    }
    const frames: string[] = [];
    await expect(
      (async () => {
        for await (const frame of sseFrames(failing(), 1000)) frames.push(frame);
      })(),
    ).rejects.toThrow("store failed");
    expect(frames).toEqual([formatSseEvent(event(1))]);
  });
});

describe("sseStream", () => {
  it("carries the events, the heartbeat and their frames", async () => {
    async function* one() {
      yield event(1, "request.completed");
    }
    const stream = sseStream(one(), 250);
    expect(stream.heartbeatMs).toBe(250);
    const frames: string[] = [];
    for await (const frame of stream.frames) frames.push(frame);
    expect(frames).toEqual([formatSseEvent(event(1, "request.completed"))]);
  });
});
