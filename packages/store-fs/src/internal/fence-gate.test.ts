import type { RequestRecord } from "@flowrt/core";
import { describe, expect, it } from "vitest";
import type { DocTable } from "./doc-table.js";
import { FenceGate } from "./fence-gate.js";
import { KeyedSharedLock } from "./shared-lock.js";

function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void;
  const promise = new Promise<void>((done) => (resolve = done));
  return { promise, resolve };
}

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe("KeyedSharedLock", () => {
  it("runs shared holders together, an exclusive one alone, in arrival order", async () => {
    const lock = new KeyedSharedLock();
    const order: string[] = [];
    const first = deferred();
    const second = deferred();
    const a = lock.shared("k", async () => {
      order.push("a");
      await first.promise;
    });
    const b = lock.shared("k", async () => {
      order.push("b");
      await second.promise;
    });
    const x = lock.exclusive("k", async () => {
      order.push("x");
    });
    const c = lock.shared("k", async () => {
      order.push("c");
    });
    await tick();
    expect(order).toEqual(["a", "b"]);
    first.resolve();
    await tick();
    expect(order).toEqual(["a", "b"]);
    second.resolve();
    await Promise.all([a, b, x, c]);
    expect(order).toEqual(["a", "b", "x", "c"]);
    // Other keys are not held up.
    await lock.exclusive("other", async () => {});
  });
});

describe("FenceGate", () => {
  it("a claim waits until a fenced write that passed its check has written", async () => {
    let epoch = 1;
    const table = { read: async () => ({ epoch }) } as unknown as DocTable<RequestRecord>;
    const gate = new FenceGate(table);
    const writing = deferred();
    const events: string[] = [];
    const write = gate.write({ requestId: "r", epoch: 1 }, async () => {
      events.push("write started");
      await writing.promise;
      events.push("write done");
    });
    await tick();
    const claimed = gate.change("r", async () => {
      epoch = 2;
      events.push("claimed");
    });
    await tick();
    expect(events).toEqual(["write started"]);
    writing.resolve();
    await Promise.all([write, claimed]);
    expect(events).toEqual(["write started", "write done", "claimed"]);
    await expect(gate.write({ requestId: "r", epoch: 1 }, async () => {})).rejects.toMatchObject({
      code: "lease-lost",
    });
  });
});
