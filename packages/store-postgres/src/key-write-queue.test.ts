import type { CasResult, JsonObject, ScopeAddress } from "@flowrt/core";
import { afterAll, describe, expect, it } from "vitest";
import type { PostgresDriver } from "./driver.js";
import { KeyWriteQueue } from "./key-write-queue.js";
import { createPgliteDriver } from "./pglite-driver.js";
import { createPostgresStores } from "./stores.js";
import { closeSharedPglite, sharedPglite, uniqueSchema } from "./testing/databases.js";

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

describe("compare-and-swap under contention in one store (PGlite)", () => {
  const schema = uniqueSchema();
  afterAll(async () => {
    const db = await sharedPglite();
    await db.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await closeSharedPglite();
  });

  it("64 concurrent increments of one key all land, and no doomed statement reaches the database", async () => {
    const inner = createPgliteDriver(await sharedPglite());
    const versionedUpdates: number[] = [];
    const driver: PostgresDriver = {
      ...inner,
      query(text, params) {
        if (/^UPDATE .*flowrt_resources" SET state/.test(text)) versionedUpdates.push(1);
        return inner.query(text, params);
      },
    };
    const stores = createPostgresStores({ driver, schema });
    await stores.setup();
    const address: ScopeAddress = { scope: "user", scopeId: "u1", bucket: "shared" };
    await stores.resources.putState(address, "counter", { n: 0 }, { type: "absent" });
    let attempts = 0;
    await Promise.all(
      Array.from({ length: 64 }, async () => {
        const stored = await stores.resources.getState(address, "counter");
        let seen = { n: Number(stored?.state.n), version: stored?.version ?? 0 };
        for (;;) {
          attempts++;
          const next = { n: seen.n + 1 };
          const result = await stores.resources.putState(address, "counter", next, {
            type: "version",
            version: seen.version,
          });
          if (result.ok) return;
          seen = { n: Number(result.current?.value.n), version: result.current?.version ?? 0 };
        }
      }),
    );
    expect(await stores.resources.getState(address, "counter")).toMatchObject({
      state: { n: 64 },
      version: 65,
    });
    expect(attempts).toBeGreaterThan(64); // the races were real
    // Every version-guarded UPDATE sent was one that could win, and did.
    expect(versionedUpdates).toHaveLength(64);
    await stores.close();
  });
});
