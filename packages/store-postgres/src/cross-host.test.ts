/**
 * Two stores on separate pools, sharing one schema, stand in for two hosts on one database. These
 * need a real server: PGlite is a single session inside one process.
 */

import { randomUUID } from "node:crypto";
import type { FlowStores, RequestEvent, RequestRecord, ScopeAddress } from "@flowrt/core";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { tableNames } from "./sql.js";
import { createPostgresStores, type PostgresStores } from "./stores.js";
import { DATABASE_URL, uniqueSchema } from "./testing/databases.js";

const eventually = async (check: () => void, timeoutMs = 5000) => {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      return check();
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  }
};

const request = (overrides: Partial<RequestRecord> = {}): RequestRecord => ({
  id: `request-${randomUUID()}`,
  sessionId: `session-${randomUUID()}`,
  flowId: "flow",
  flowKind: "kind",
  action: "act",
  userId: "user",
  status: "queued",
  input: null,
  metadata: {},
  durable: true,
  version: 1,
  createdAt: new Date().toISOString(),
  ...overrides,
});

const event = (requestId: string, i: number) => ({
  requestId,
  type: "text.delta",
  at: new Date().toISOString(),
  data: { i },
});

describe.skipIf(!DATABASE_URL)("two hosts on one database (needs DATABASE_URL)", () => {
  const schema = uniqueSchema();
  const errors: unknown[] = [];
  let a: PostgresStores;
  let b: PostgresStores;
  let admin: pg.Pool;
  const host = () => {
    const stores = createPostgresStores({
      connectionString: DATABASE_URL as string,
      schema,
      onError: (error) => errors.push(error),
    });
    return stores;
  };

  beforeAll(async () => {
    admin = new pg.Pool({ connectionString: DATABASE_URL, max: 2 });
    a = host();
    b = host();
    await Promise.all([a.setup(), b.setup()]);
  });

  afterAll(async () => {
    await a?.close();
    await b?.close();
    await admin?.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await admin?.end();
  });

  it("64 concurrent compare-and-swap increments from two hosts all land", async () => {
    const address: ScopeAddress = { scope: "user", scopeId: randomUUID(), bucket: "shared" };
    const increment = async (stores: FlowStores) => {
      for (;;) {
        const current = await stores.resources.getState(address, "counter");
        const next = { n: ((current?.state.n as number | undefined) ?? 0) + 1 };
        const result = await stores.resources.putState(
          address,
          "counter",
          next,
          current ? { type: "version", version: current.version } : { type: "absent" },
        );
        if (result.ok) return;
      }
    };
    await Promise.all(Array.from({ length: 64 }, (_, i) => increment(i % 2 === 0 ? a : b)));
    expect(await b.resources.getState(address, "counter")).toMatchObject({ state: { n: 64 }, version: 64 });
    expect(await a.resources.count(address)).toBe(1);
  });

  it("create-only writes from two hosts: exactly one wins, and the counters stay exact", async () => {
    const address: ScopeAddress = { scope: "org", scopeId: randomUUID(), bucket: "shared" };
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        (i % 2 ? a : b).resources.putState(address, `dir/k${i % 5}`, { i }, { type: "absent" }),
      ),
    );
    expect(results.filter((r) => r.ok)).toHaveLength(5);
    expect(await a.resources.count(address, "dir/")).toBe(5);
    await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        (i % 2 ? a : b).resources.deleteState(address, `dir/k${i % 5}`, { type: "any" }),
      ),
    );
    expect(await b.resources.count(address, "dir/")).toBe(0);
    expect(await b.resources.count(address)).toBe(0);
  });

  it("a subscriber that has received nothing yet still gets what committed while its listening connection was down", async () => {
    const record = request();
    await a.requests.create(record);
    const got: number[] = [];
    // B is listening already (another subscription opened the connection) when the subscriber comes.
    const warm = b.requests.subscribe(request().id, () => {});
    let stop = () => {};
    try {
      const ours = `LISTEN ${tableNames(schema).channel}`;
      const listeners = async () =>
        (
          await admin.query<{ pid: number }>(
            "SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND query = $1",
            [ours],
          )
        ).rows.map((r) => r.pid);
      const deadline = Date.now() + 5000;
      while ((await listeners()).length === 0) {
        if (Date.now() > deadline) throw new Error("B never listened");
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      stop = b.requests.subscribe(record.id, (e) => got.push(e.seq));
      await new Promise((resolve) => setTimeout(resolve, 50));
      // Cut the listening connection from the server side.
      await admin.query(
        "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND query = $1",
        [ours],
      );
      for (let i = 0; i < 3; i++) await a.requests.appendEvent(event(record.id, i));
      await eventually(() => expect(got).toEqual([1, 2, 3]));
    } finally {
      stop();
      warm();
    }
  });

  it("concurrent appends from two hosts get gap-free seqs", async () => {
    const record = request();
    await a.requests.create(record);
    const appended = await Promise.all(
      Array.from({ length: 40 }, (_, i) => (i % 2 ? a : b).requests.appendEvent(event(record.id, i))),
    );
    expect(appended.map((e) => e.seq).sort((x, y) => x - y)).toEqual(
      Array.from({ length: 40 }, (_, i) => i + 1),
    );
    const read = await b.requests.readEvents(record.id);
    expect(read.map((e) => e.seq)).toEqual(Array.from({ length: 40 }, (_, i) => i + 1));
  });

  it("once one host marks a request aborted, the other's appends are refused, racing ones land before the end", async () => {
    for (let trial = 0; trial < 20; trial++) {
      const record = request({ status: "running" });
      await a.requests.create(record);
      // B appends as fast as it can while A aborts: each append lands before the terminal event, or is refused.
      let refused = 0;
      let appending = true;
      const appender = (async () => {
        for (let i = 0; appending || i < 3; i++) {
          try {
            await b.requests.appendEvent(event(record.id, i));
          } catch (error) {
            expect(error).toMatchObject({ code: "request-finished" });
            refused++;
            if (!appending) break;
          }
        }
      })();
      await new Promise((resolve) => setTimeout(resolve, trial % 5));
      const aborted = await a.requests.update(record.id, record.version, {
        status: "aborted",
        completedAt: new Date().toISOString(),
      });
      expect(aborted.ok).toBe(true);
      const end = await a.requests.appendEvent({
        requestId: record.id,
        type: "request.aborted",
        at: new Date().toISOString(),
        data: {},
      });
      appending = false;
      await appender;
      expect(refused).toBeGreaterThan(0);
      const log = await b.requests.readEvents(record.id);
      expect(log.at(-1)).toMatchObject({ seq: end.seq, type: "request.aborted" });
      expect(log.map((e) => e.seq)).toEqual(log.map((_, i) => i + 1));
    }
  });

  it("purges run on two hosts at once do not deadlock, and together apply every policy", async () => {
    for (let round = 0; round < 6; round++) {
      await a.requests.purgeFinished({ maxCount: 0 }); // what other cases finished would count against maxCount
      const now = Date.now();
      const records = Array.from({ length: 200 }, (_, i) =>
        request({
          status: "completed",
          createdAt: new Date(now - 400_000).toISOString(),
          // Completion times scattered over the last 200 s, so that age and rank pick different rows.
          completedAt: new Date(now - ((i * 7919) % 200) * 1000).toISOString(),
        }),
      );
      for (const record of records) {
        await a.requests.create(record);
        await a.requests.appendEvent({
          requestId: record.id,
          type: "request.completed",
          at: record.completedAt!,
          data: {},
        });
      }
      const outcomes = await Promise.allSettled([
        a.requests.purgeFinished({ maxCount: 150, now }),
        b.requests.purgeFinished({ maxAgeMs: 150_000, now }),
        a.requests.purgeFinished({ maxCount: 100, now }),
        b.requests.purgeFinished({ maxAgeMs: 100_000, now }),
        a.requests.purgeFinished({ maxCount: 60, now }),
        b.requests.purgeFinished({ maxCount: 50, now }),
      ]);
      expect(outcomes.filter((o) => o.status === "rejected")).toEqual([]);
      const kept = (await Promise.all(records.map((r) => b.requests.get(r.id)))).filter((r) => r !== null);
      expect(kept).toHaveLength(50);
      expect(kept.every((r) => now - Date.parse(r.completedAt!) < 100_000)).toBe(true);
      for (const gone of records.filter((r) => !kept.some((k) => k.id === r.id)).slice(0, 5))
        expect(await b.requests.readEvents(gone.id)).toEqual([]);
    }
  });

  it("events appended on one host reach a subscriber on the other, live and in order", async () => {
    const record = request();
    const other = request();
    await a.requests.create(record);
    const received: RequestEvent[] = [];
    // Subscribed before host B's listener is up: events from the start-up window still arrive.
    const off = b.requests.subscribe(record.id, (e) => received.push(e));
    const sent: RequestEvent[] = [];
    for (let i = 0; i < 5; i++) sent.push(await a.requests.appendEvent(event(record.id, i)));
    await a.requests.appendEvent(event(other.id, 0));
    const burst = await Promise.all(
      Array.from({ length: 15 }, (_, i) => a.requests.appendEvent(event(record.id, 5 + i))),
    );
    sent.push(...burst.sort((x, y) => x.seq - y.seq));
    await eventually(() => expect(received).toEqual(sent));
    off();
    await a.requests.appendEvent(event(record.id, 99));
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(received).toHaveLength(20);
  });

  it("a subscriber recovers after its listening connection is killed", async () => {
    const record = request();
    await a.requests.create(record);
    const received: number[] = [];
    const off = b.requests.subscribe(record.id, (e) => received.push(e.seq));
    await a.requests.appendEvent(event(record.id, 1));
    await eventually(() => expect(received).toEqual([1]));

    errors.length = 0;
    const { rowCount } = await admin.query(
      "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE query LIKE 'LISTEN flowrt_events_%' AND datname = current_database()",
    );
    expect(rowCount).toBeGreaterThanOrEqual(1);
    await eventually(() => expect(errors.length).toBeGreaterThan(0));
    // Appended while no listener is up; delivered once the store has listened again.
    await a.requests.appendEvent(event(record.id, 2));
    await a.requests.appendEvent(event(record.id, 3));
    await eventually(() => expect(received).toEqual([1, 2, 3]));
    off();
  });

  it("a queued durable request is claimed by exactly one host, and an expired claim can be taken over", async () => {
    const record = request({ status: "queued", durable: true });
    await a.requests.create(record);
    const claim = async (stores: FlowStores, hostId: string) => {
      const queued = (await stores.requests.listByStatus(["queued"], { durableOnly: true })).find(
        (r) => r.id === record.id,
      );
      if (!queued) return false;
      const result = await stores.requests.update(queued.id, queued.version, {
        status: "running",
        claim: { hostId, until: Date.now() - 1 },
      });
      return result.ok;
    };
    const wins = await Promise.all([claim(a, "a"), claim(b, "b"), claim(a, "a2"), claim(b, "b2")]);
    expect(wins.filter(Boolean)).toHaveLength(1);

    // The winner "died": its claim has expired. The other host takes the work over by CAS.
    const running = (await b.requests.listByStatus(["running"], { durableOnly: true })).find(
      (r) => r.id === record.id,
    );
    expect(running?.claim?.until).toBeLessThan(Date.now());
    const takeover = await b.requests.update(record.id, running!.version, {
      claim: { hostId: "b", until: Date.now() + 60_000 },
    });
    expect(takeover).toEqual({ ok: true, version: 3 });
    // The old owner's late write loses and sees the new claim.
    const late = await a.requests.update(record.id, running!.version, { status: "completed" });
    expect(late).toMatchObject({
      ok: false,
      current: { version: 3, value: { status: "running", claim: { hostId: "b" } } },
    });
  });
});
