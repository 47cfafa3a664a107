import type { RequestEvent } from "@flowrt/core";
import { describe, expect, it } from "vitest";
import { MemoryEventLog } from "./memory-event-log.js";

const at = "2024-01-01T00:00:00.000Z";
const event = (data: RequestEvent["data"] = {}, requestId = "r") => ({ requestId, type: "x", at, data });

function newLog() {
  const errors: unknown[] = [];
  return { log: new MemoryEventLog((error) => errors.push(error)), errors };
}

describe("MemoryEventLog", () => {
  it("gives every listener, the append's caller and each reader its own copy", () => {
    const { log } = newLog();
    const seen: RequestEvent[] = [];
    log.subscribe("r", (e) => {
      (e.data.list as number[]).push(99);
      seen.push(e);
    });
    log.subscribe("r", (e) => seen.push(e));
    const appended = log.append(event({ list: [1] }));
    (appended.data.list as number[]).push(7);
    expect(seen.map((e) => e.data)).toEqual([{ list: [1, 99] }, { list: [1] }]);
    expect(seen[0]!.data).not.toBe(seen[1]!.data);
    const [first] = log.read("r", 0, Number.POSITIVE_INFINITY);
    expect(first).toEqual({ seq: 1, type: "x", requestId: "r", at, data: { list: [1] } });
    expect(log.read("r", 0, 1)[0]!.data).not.toBe(first!.data);
  });

  it("answers an append with a plain event whose data is its own copy, free to change", () => {
    const { log } = newLog();
    const data = { list: [1] };
    const appended = log.append(event(data));
    data.list.push(2);
    expect(appended).toEqual({ seq: 1, type: "x", requestId: "r", at, data: { list: [1] } });
    expect(Object.keys(appended)).toEqual(["seq", "type", "requestId", "at", "data"]);
    expect(JSON.parse(JSON.stringify(appended))).toEqual({ ...appended });
    (appended.data.list as number[]).push(7);
    expect(appended.data).toEqual({ list: [1, 7] });
    appended.data = { replaced: true };
    expect(appended.data).toEqual({ replaced: true });
    expect(log.read("r", 0, 1)[0]!.data).toEqual({ list: [1] });
  });

  it("delivers an event a listener appends after the one being delivered, so every listener sees seq order", () => {
    const { log } = newLog();
    const first: number[] = [];
    const second: number[] = [];
    log.subscribe("r", (e) => {
      first.push(e.seq);
      if (e.seq === 1) log.append(event({ echo: true }));
    });
    log.subscribe("r", (e) => second.push(e.seq));
    log.append(event());
    expect(first).toEqual([1, 2]);
    expect(second).toEqual([1, 2]);
    // Delivery is idle again: the next append is delivered at once.
    log.append(event());
    expect(second).toEqual([1, 2, 3]);
  });

  it("delivers an event to the listeners subscribed when it was stored", () => {
    const { log } = newLog();
    const late: number[] = [];
    const other: number[] = [];
    let unsubscribeOther = () => {};
    log.subscribe("r", () => {
      log.subscribe("r", (e) => late.push(e.seq));
      unsubscribeOther();
    });
    unsubscribeOther = log.subscribe("r", (e) => other.push(e.seq));
    log.append(event());
    expect(late).toEqual([]);
    expect(other).toEqual([1]);
    log.append(event());
    expect(other).toEqual([1]);
    expect(late).toEqual([2]);
  });

  it("a single listener that subscribes another does not hand it the event being delivered", () => {
    const { log } = newLog();
    const late: number[] = [];
    const unsubscribe = log.subscribe("r", () => {
      unsubscribe();
      log.subscribe("r", (e) => late.push(e.seq));
    });
    log.append(event());
    log.append(event());
    expect(late).toEqual([2]);
  });

  it("reports a throwing listener with a copy of the event and keeps delivering", () => {
    const { log, errors } = newLog();
    const seen: number[] = [];
    log.subscribe("r", () => {
      throw new Error("listener bug");
    });
    log.subscribe("r", (e) => seen.push(e.seq));
    expect(log.append(event()).seq).toBe(1);
    expect(errors).toEqual([new Error("listener bug")]);
    expect(seen).toEqual([1]);
  });

  it("refuses an event that is not JSON, or lacks its strings, without using up a seq", () => {
    const { log } = newLog();
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(() => log.append(event(cyclic as never))).toThrow(/event data is not JSON/);
    expect(() => log.append(event({ n: 1n } as never))).toThrow(/event data is not JSON/);
    expect(() => log.append(event([] as never))).toThrow(/event data must be a JSON object/);
    expect(() => log.append({ ...event(), type: 1 } as never)).toThrow(/event type must be a string/);
    expect(() => log.append({ ...event(), at: new Date() } as never)).toThrow(/event at must be a string/);
    expect(() => log.append({ ...event(), requestId: undefined } as never)).toThrow(/requestId/);
    expect(log.read("r", 0, Number.POSITIVE_INFINITY)).toEqual([]);
    expect(log.append(event()).seq).toBe(1);
  });

  it("stores data as JSON does: undefined members dropped, toJSON applied", () => {
    const { log } = newLog();
    log.append(event({ gone: undefined, when: new Date(0) } as never));
    expect(log.read("r", 0, 1)[0]!.data).toEqual({ when: "1970-01-01T00:00:00.000Z" });
    expect(Object.hasOwn(log.read("r", 0, 1)[0]!.data, "gone")).toBe(false);
  });

  it("reads a window after a seq and forgets a deleted log", () => {
    const { log } = newLog();
    for (let i = 0; i < 5; i++) log.append(event({ i }));
    expect(log.read("r", 2, 2).map((e) => [e.seq, e.data.i])).toEqual([
      [3, 2],
      [4, 3],
    ]);
    expect(log.read("r", 4.5, 10).map((e) => e.seq)).toEqual([5]);
    expect(log.read("r", 5, 10)).toEqual([]);
    log.delete("r");
    expect(log.read("r", 0, 10)).toEqual([]);
    expect(log.append(event()).seq).toBe(1);
  });
});
