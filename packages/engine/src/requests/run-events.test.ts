import { FlowError, type NewRequestEvent } from "@flowrt/core";
import { describe, expect, it } from "vitest";
import { RunEvents } from "./run-events.js";

const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

function writer(options: { refuse?: string; fail?: string } = {}) {
  const written: string[] = [];
  let stopped = false;
  const events = new RunEvents(
    "r1",
    async (event: NewRequestEvent) => {
      await Promise.resolve();
      if (event.type === options.refuse) {
        stopped = true;
        throw new FlowError("request-aborted", "refused");
      }
      if (event.type === options.fail) throw new Error("store down");
      written.push(event.type);
    },
    (error) => error instanceof FlowError && error.code === "request-aborted",
    () => !stopped,
  );
  return { events, written, stopped: () => stopped };
}

describe("a run's event writes", () => {
  it("keeps block.started and block.completed until the run ends: the end takes both, unwritten", async () => {
    const { events, written } = writer();
    await events.emit("block.started", { block: "b" });
    await events.emit("block.completed", { block: "b" });
    expect(written).toEqual([]);
    const taken = await events.takeDeferred();
    expect(taken.map((event) => event.type)).toEqual(["block.started", "block.completed"]);
    expect(taken.every((event) => event.requestId === "r1" && typeof event.at === "string")).toBe(true);
    await turn();
    expect(written).toEqual([]); // taken: never written by the writer itself
  });

  it("writes a deferred event at the next turn of the event loop, so a long block is seen to start", async () => {
    const { events, written } = writer();
    await events.emit("block.started", { block: "b" });
    await turn();
    await turn();
    expect(written).toEqual(["block.started"]);
    expect(await events.takeDeferred()).toEqual([]);
  });

  it("writes the deferred events before an event that is written at once, in emit order", async () => {
    const { events, written } = writer();
    await events.emit("block.started", { block: "b" });
    await events.emit("text.delta", { delta: "a" });
    expect(written).toEqual(["block.started", "text.delta"]);
    await events.emit("block.completed", { block: "b" });
    await events.emit("progress", {});
    expect(written).toEqual(["block.started", "text.delta", "block.completed", "progress"]);
  });

  it("a refused deferred write stops the run: nothing after it is written, and the end takes nothing", async () => {
    const { events, written, stopped } = writer({ refuse: "block.started" });
    await events.emit("block.started", { block: "b" });
    await events.emit("block.completed", { block: "b" });
    await turn();
    await turn();
    expect(stopped()).toBe(true);
    expect(written).toEqual([]);
    expect(await events.takeDeferred()).toEqual([]);
    expect(events.failure).toBeUndefined();
  });

  it("a deferred write that fails otherwise is kept: the next emit is refused with it, and the run's end sees it", async () => {
    const { events, written } = writer({ fail: "block.started" });
    await events.emit("block.started", { block: "b" });
    await turn();
    await turn();
    await expect(events.emit("text.delta", { delta: "a" })).rejects.toThrow("store down");
    expect(written).toEqual([]);
    expect(events.failure).toBeInstanceOf(Error);
  });
});
