import type { CasResult, JsonObject } from "@flowrt/core";
import { describe, expect, it } from "vitest";
import { KeyWriteQueue } from "./key-write-queue.js";

const deferred = <T>() => {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
};

describe("KeyWriteQueue", () => {
  it("sends one write per key at a time; other keys do not wait", async () => {
    const queue = new KeyWriteQueue();
    const first = deferred<CasResult<JsonObject>>();
    const started: string[] = [];
    /** A write that records its start and then answers `answer`. */
    const writing =
      (name: string, answer: () => Promise<CasResult<JsonObject>>) => (): Promise<CasResult<JsonObject>> => {
        started.push(name);
        return answer();
      };
    const a1 = queue.run(
      "a",
      { type: "any" },
      writing("a1", () => first.promise),
      "{}",
    );
    const a2 = queue.run(
      "a",
      { type: "any" },
      writing("a2", async () => ({ ok: true, version: 2 })),
      "{}",
    );
    const b1 = queue.run(
      "b",
      { type: "any" },
      writing("b1", async () => ({ ok: true, version: 1 })),
      "{}",
    );
    await b1;
    expect(started).toEqual(["a1", "b1"]);
    first.resolve({ ok: true, version: 1 });
    expect(await a1).toEqual({ ok: true, version: 1 });
    expect(await a2).toEqual({ ok: true, version: 2 });
    expect(started).toEqual(["a1", "b1", "a2"]);
  });

  it("a compare-and-swap older than a version this store has seen loses at once, with that value", async () => {
    const queue = new KeyWriteQueue();
    const first = deferred<CasResult<JsonObject>>();
    let sent = 0;
    const winner = queue.run(
      "k",
      { type: "version", version: 4 },
      () => {
        sent++;
        return first.promise;
      },
      '{"n":5}',
    );
    const doomed = queue.run(
      "k",
      { type: "version", version: 4 },
      async () => {
        sent++;
        return { ok: true, version: 99 };
      },
      '{"n":6}',
    );
    first.resolve({ ok: true, version: 5 });
    expect(await winner).toEqual({ ok: true, version: 5 });
    expect(await doomed).toEqual({ ok: false, current: { value: { n: 5 }, version: 5 } });
    expect(sent).toBe(1);
    // The current value handed out is a copy: changing it changes nothing the queue knows.
    const again = await queue.run(
      "k",
      { type: "version", version: 3 },
      async () => ({ ok: true, version: 0 }),
      null,
    );
    expect(again).toEqual({ ok: false, current: { value: { n: 5 }, version: 5 } });
  });

  it("a tombstone this store wrote makes an older compare-and-swap lose with nothing current", async () => {
    const queue = new KeyWriteQueue();
    const gate = deferred<CasResult<JsonObject>>();
    const deletion = queue.run("k", { type: "version", version: 2 }, () => gate.promise, null);
    const update = queue.run(
      "k",
      { type: "version", version: 2 },
      async () => ({ ok: true, version: 9 }),
      "{}",
    );
    gate.resolve({ ok: true, version: 3 });
    await deletion;
    expect(await update).toEqual({ ok: false, current: null });
  });

  it("a write whose outcome is unknown (it threw) forgets the key's version, so the next one goes to the database", async () => {
    const queue = new KeyWriteQueue();
    await queue.run("k", { type: "absent" }, async () => ({ ok: true, version: 1 }), "{}");
    const gate = deferred<CasResult<JsonObject>>();
    const failing = queue.run("k", { type: "version", version: 1 }, () => gate.promise, "{}");
    let sent = false;
    const next = queue.run(
      "k",
      { type: "version", version: 1 },
      async () => {
        sent = true;
        return { ok: false, current: { value: { n: 7 }, version: 8 } };
      },
      "{}",
    );
    gate.reject(new Error("connection lost"));
    await expect(failing).rejects.toThrow("connection lost");
    expect(await next).toEqual({ ok: false, current: { value: { n: 7 }, version: 8 } });
    expect(sent).toBe(true);
  });
});
