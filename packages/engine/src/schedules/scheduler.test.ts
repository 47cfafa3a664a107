/**
 * Scheduled runs on a fake clock (vitest's fake `setTimeout`, `setInterval` and `Date`; promises and
 * `setImmediate` stay real, so the stores and the runs settle between steps).
 */
import { defineFlow, type FlowStores, isFlowError } from "@flowrt/core";
import { createMemoryStores } from "@flowrt/store-memory";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { createFlowHost, type FlowHost } from "../host.js";
import type { FlowHostOptions } from "../host-options.js";
import { silentLogger } from "../logger.js";
import { recordingLogger } from "../testing/recording-logger.js";
import { clockFlow, scheduledAt, scheduledRequests, tickBlock } from "./testing/clock-flow.js";

const hosts: FlowHost[] = [];

async function startHost(
  flows: FlowHostOptions["flows"],
  stores: FlowStores,
  options: Partial<FlowHostOptions> = {},
): Promise<FlowHost> {
  const host = createFlowHost({ flows, stores, logger: silentLogger, recoveryIntervalMs: 0, ...options });
  hosts.push(host);
  await host.start();
  return host;
}

/** Lets the stores and the runs settle (real `setImmediate` turns). */
async function settleAll(): Promise<void> {
  for (let i = 0; i < 30; i++) await new Promise((resolve) => setImmediate(resolve));
}

/** Moves the fake clock on by `ms`, running each timer due on the way, then lets the work settle. */
async function advance(ms: number): Promise<void> {
  await vi.advanceTimersByTimeAsync(ms);
  await settleAll();
}

const ticksOf = async (stores: FlowStores) => (await scheduledRequests(stores)).map(scheduledAt);

beforeEach(() => {
  vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "setInterval", "clearInterval", "Date"] });
});
afterEach(async () => {
  await Promise.all(hosts.splice(0).map((host) => host.close()));
  vi.useRealTimers();
});

describe("a schedule fires each tick once, as its principal", () => {
  it("a per-minute cron: nothing before the first tick, then one completed run per tick, source scheduled", async () => {
    vi.setSystemTime(Date.parse("2026-01-01T00:00:30Z"));
    const stores = createMemoryStores();
    await startHost([clockFlow({ everyMinute: { cron: "* * * * *" } })], stores);
    await advance(29_000);
    expect(await scheduledRequests(stores)).toEqual([]);

    await advance(3 * 60_000);
    const requests = await scheduledRequests(stores);
    expect(requests.map(scheduledAt)).toEqual([
      "2026-01-01T00:01:00.000Z",
      "2026-01-01T00:02:00.000Z",
      "2026-01-01T00:03:00.000Z",
    ]);
    for (const request of requests) {
      expect(request).toMatchObject({
        flowId: "clock",
        action: "schedule:everyMinute",
        userId: "ops",
        status: "completed",
        output: { ranFor: scheduledAt(request) },
        metadata: { origin: "scheduled", schedule: { name: "everyMinute" } },
      });
      // A fresh ephemeral session per tick, which retention removes with its request.
      expect((await stores.sessions.get(request.sessionId))?.metadata).toEqual({ ephemeral: true });
    }
    expect(await stores.schedules.latestTick("clock", "everyMinute")).toMatchObject({
      at: Date.parse("2026-01-01T00:03:00Z"),
      requestId: requests[2]!.id,
    });
  });

  it("asserts the schedule's principal: the flow's resolver is never asked", async () => {
    vi.setSystemTime(Date.parse("2026-01-01T00:00:30Z"));
    const stores = createMemoryStores();
    const resolvePrincipal = vi.fn(() => {
      throw new Error("no resolver runs for a schedule");
    });
    const guarded = defineFlow({
      kind: "guarded",
      authentication: { resolvePrincipal },
      schedules: {
        nightly: {
          cron: "* * * * *",
          block: tickBlock,
          input: { at: "fixed" },
          principal: { userId: "ops", orgId: "acme" },
        },
      },
    });
    await startHost([guarded], stores);
    await advance(60_000);
    const [request] = await scheduledRequests(stores);
    expect(request).toMatchObject({
      status: "completed",
      userId: "ops",
      orgId: "acme",
      output: { ranFor: "fixed" },
    });
    expect((await stores.sessions.get(request!.sessionId))?.orgId).toBe("acme");
    expect(resolvePrincipal).not.toHaveBeenCalled();
  });

  it("a named session takes every tick; one bound to another user refuses it as a failed request", async () => {
    vi.setSystemTime(Date.parse("2026-01-01T00:00:30Z"));
    const stores = createMemoryStores();
    const flow = clockFlow({
      mine: { cron: "* * * * *", sessionId: "ops-inbox" },
      taken: { cron: "* * * * *", sessionId: "someone-elses" },
    });
    await stores.sessions.create({
      id: "someone-elses",
      flowId: "clock",
      flowKind: "clock",
      userId: "mallory",
      rootSessionId: "someone-elses",
      metadata: {},
      createdAt: new Date().toISOString(),
    });
    await startHost([flow], stores);
    await advance(2 * 60_000);
    const requests = await scheduledRequests(stores);
    const mine = requests.filter((r) => r.action === "schedule:mine");
    expect(mine.map((r) => [r.sessionId, r.status])).toEqual([
      ["ops-inbox", "completed"],
      ["ops-inbox", "completed"],
    ]);
    expect(await stores.sessions.get("ops-inbox")).toMatchObject({ userId: "ops", flowId: "clock" });
    const taken = requests.filter((r) => r.action === "schedule:taken");
    expect(taken).toHaveLength(2);
    for (const request of taken) {
      expect(request.status).toBe("failed");
      expect(request.error?.code).toBe("user-binding-mismatch");
      expect(request.sessionId).not.toBe("someone-elses");
    }
    // Nothing ran in the other user's session.
    expect(await stores.requests.listBySession("someone-elses", { limit: 10 })).toEqual([]);
  });

  it("an input the block's schema refuses is a failed request with the tick's id, the block never runs", async () => {
    vi.setSystemTime(Date.parse("2026-01-01T00:00:30Z"));
    const stores = createMemoryStores();
    await startHost([clockFlow({ bad: { cron: "* * * * *", input: { at: 42 } } })], stores);
    await advance(60_000);
    const [request] = await scheduledRequests(stores);
    expect(request).toMatchObject({ status: "failed", error: { code: "invalid-input" } });
    expect(request!.output).toBeUndefined();
    expect((await stores.schedules.latestTick("clock", "bad"))?.requestId).toBe(request!.id);
  });

  it("a scheduled request is not retryable (409 not-retryable), and nothing new is stored", async () => {
    vi.setSystemTime(Date.parse("2026-01-01T00:00:30Z"));
    const stores = createMemoryStores();
    const host = await startHost([clockFlow({ everyMinute: { cron: "* * * * *" } })], stores);
    await advance(60_000);
    const [request] = await scheduledRequests(stores);
    const error = await host
      .retryRequest(request!.id, { source: "test", principal: { userId: "ops" } })
      .catch((e: unknown) => e);
    expect(isFlowError(error) && error.code).toBe("not-retryable");
    expect(await scheduledRequests(stores)).toHaveLength(1);
    expect(await stores.requests.listByStatus(["queued", "running", "completed", "failed"])).toHaveLength(1);
  });

  it("close() stops the scheduler: no tick fires afterwards", async () => {
    vi.setSystemTime(Date.parse("2026-01-01T00:00:30Z"));
    const stores = createMemoryStores();
    const host = await startHost([clockFlow({ everyMinute: { cron: "* * * * *" } })], stores);
    await advance(60_000);
    await host.close();
    await advance(5 * 60_000);
    expect(await ticksOf(stores)).toEqual(["2026-01-01T00:01:00.000Z"]);
  });
});

describe("time zones: the expression is read in the schedule's zone (Europe/Berlin across DST)", () => {
  it("spring forward: 02:30 does not exist on March 29th and runs at 03:00 CEST; 09:00 moves from 08:00Z to 07:00Z", async () => {
    vi.setSystemTime(Date.parse("2026-03-27T12:00:00Z"));
    const stores = createMemoryStores();
    await startHost(
      [
        clockFlow({
          night: { cron: "30 2 * * *", timezone: "Europe/Berlin" },
          morning: { cron: "0 9 * * *", timezone: "Europe/Berlin" },
        }),
      ],
      stores,
    );
    await advance(4 * 24 * 3_600_000);
    const requests = await scheduledRequests(stores);
    const of = (name: string) => requests.filter((r) => r.action === `schedule:${name}`).map(scheduledAt);
    expect(of("night")).toEqual([
      "2026-03-28T01:30:00.000Z",
      "2026-03-29T01:00:00.000Z",
      "2026-03-30T00:30:00.000Z",
      "2026-03-31T00:30:00.000Z",
    ]);
    expect(of("morning")).toEqual([
      "2026-03-28T08:00:00.000Z",
      "2026-03-29T07:00:00.000Z",
      "2026-03-30T07:00:00.000Z",
      "2026-03-31T07:00:00.000Z",
    ]);
  });

  it("fall back: 02:30 happens twice on October 25th and runs once, at its first (CEST) occurrence", async () => {
    vi.setSystemTime(Date.parse("2026-10-24T12:00:00Z"));
    const stores = createMemoryStores();
    await startHost([clockFlow({ night: { cron: "30 2 * * *", timezone: "Europe/Berlin" } })], stores);
    await advance(2 * 24 * 3_600_000);
    expect(await ticksOf(stores)).toEqual(["2026-10-25T00:30:00.000Z", "2026-10-26T01:30:00.000Z"]);
  });

  it("the default zone is UTC", async () => {
    vi.setSystemTime(Date.parse("2026-03-28T12:00:00Z"));
    const stores = createMemoryStores();
    await startHost([clockFlow({ night: { cron: "30 2 * * *" } })], stores);
    await advance(2 * 24 * 3_600_000);
    expect(await ticksOf(stores)).toEqual(["2026-03-29T02:30:00.000Z", "2026-03-30T02:30:00.000Z"]);
  });
});

describe("catch-up after downtime", () => {
  const hourly = (catchUp?: "none" | "latest") =>
    clockFlow({ hourly: { cron: "0 * * * *", ...(catchUp ? { catchUp } : {}) } });

  /** A host ran from 00:30 to 01:30 (firing 01:00), then every host was down until 04:30. */
  async function downtime(stores: FlowStores): Promise<void> {
    vi.setSystemTime(Date.parse("2026-01-01T00:30:00Z"));
    const first = await startHost([hourly()], stores);
    await advance(3_600_000);
    await first.close();
    vi.setSystemTime(Date.parse("2026-01-01T04:30:00Z"));
  }

  it("latest (the default): the most recent missed tick runs once at start, the ones before it never", async () => {
    const stores = createMemoryStores();
    await downtime(stores);
    await startHost([hourly()], stores);
    await settleAll();
    expect(await ticksOf(stores)).toEqual(["2026-01-01T01:00:00.000Z", "2026-01-01T04:00:00.000Z"]);
    const caughtUp = (await scheduledRequests(stores))[1]!;
    expect(caughtUp.createdAt).toBe("2026-01-01T04:30:00.000Z");
    await advance(30 * 60_000);
    expect(await ticksOf(stores)).toEqual([
      "2026-01-01T01:00:00.000Z",
      "2026-01-01T04:00:00.000Z",
      "2026-01-01T05:00:00.000Z",
    ]);
  });

  it("none: only future ticks run", async () => {
    const stores = createMemoryStores();
    await downtime(stores);
    await startHost([hourly("none")], stores);
    await settleAll();
    expect(await ticksOf(stores)).toEqual(["2026-01-01T01:00:00.000Z"]);
    await advance(30 * 60_000);
    expect(await ticksOf(stores)).toEqual(["2026-01-01T01:00:00.000Z", "2026-01-01T05:00:00.000Z"]);
  });

  it("a restart that missed nothing runs nothing again, and a schedule that never fired has nothing to catch up", async () => {
    const stores = createMemoryStores();
    vi.setSystemTime(Date.parse("2026-01-01T00:30:00Z"));
    const first = await startHost([hourly()], stores);
    await advance(3_600_000);
    await first.close();
    vi.setSystemTime(Date.parse("2026-01-01T01:40:00Z"));
    await startHost([hourly()], stores);
    await settleAll();
    expect(await ticksOf(stores)).toEqual(["2026-01-01T01:00:00.000Z"]);

    const fresh = createMemoryStores();
    await startHost([hourly()], fresh);
    await settleAll();
    expect(await ticksOf(fresh)).toEqual([]);
  });
});

describe("a host that died holding a claim", () => {
  it("catch-up at the next start takes the lapsed, unfired claim over and fires the tick once", async () => {
    const stores = createMemoryStores();
    const dueAt = Date.parse("2026-01-01T04:00:00Z");
    // A host claimed 04:00 and died before firing it (and had fired 03:00 before).
    const tick = (at: number) => ({ flowId: "clock", schedule: "hourly", at });
    const earlier = dueAt - 3_600_000;
    await stores.schedules.claimTick(tick(earlier), { hostId: "dead", until: earlier + 1_000 }, earlier);
    await stores.schedules.fireTick(tick(earlier), 1, "request-0300");
    await stores.schedules.claimTick(tick(dueAt), { hostId: "dead", until: dueAt + 1_000 }, dueAt);
    vi.setSystemTime(Date.parse("2026-01-01T04:30:00Z"));
    await startHost([clockFlow({ hourly: { cron: "0 * * * *" } })], stores, { hostId: "next" });
    await settleAll();
    const requests = await scheduledRequests(stores);
    expect(requests.map((r) => [scheduledAt(r), r.status])).toEqual([
      ["2026-01-01T04:00:00.000Z", "completed"],
    ]);
    expect(await stores.schedules.latestTick("clock", "hourly")).toMatchObject({
      epoch: 2,
      claim: { hostId: "next" },
      requestId: requests[0]!.id,
    });
  });
});

describe("closing", () => {
  it("close() waits for a tick being fired: its request is stored and run before the host has drained", async () => {
    vi.setSystemTime(Date.parse("2026-01-01T00:00:30Z"));
    const stores = createMemoryStores();
    let release!: () => void;
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    let claiming = false;
    const slow: FlowStores = {
      ...stores,
      schedules: {
        claimTick: async (...args) => {
          claiming = true;
          await released;
          return stores.schedules.claimTick(...args);
        },
        fireTick: (...args) => stores.schedules.fireTick(...args),
        latestTick: (...args) => stores.schedules.latestTick(...args),
      },
    };
    const host = await startHost([clockFlow({ everyMinute: { cron: "* * * * *" } })], slow);
    await advance(30_000);
    expect(claiming).toBe(true);
    let closed = false;
    const closing = host.close().then(() => {
      closed = true;
    });
    await settleAll();
    expect(closed, "close waits for the tick being fired").toBe(false);
    release();
    await closing;
    const [request] = await scheduledRequests(stores);
    expect(request).toMatchObject({ status: "completed", output: { ranFor: "2026-01-01T00:01:00.000Z" } });
  });
});

describe("several hosts on one store", () => {
  it("two hosts, ten per-second ticks: each tick runs once", async () => {
    vi.setSystemTime(Date.parse("2026-01-01T00:00:00.500Z"));
    const stores = createMemoryStores();
    const flow = clockFlow({ everySecond: { cron: "* * * * * *" } });
    await startHost([flow], stores, { hostId: "a" });
    await startHost([flow], stores, { hostId: "b" });
    await advance(10_000);
    expect(await ticksOf(stores)).toEqual(
      Array.from({ length: 10 }, (_, i) =>
        new Date(Date.parse("2026-01-01T00:00:01Z") + i * 1_000).toISOString(),
      ),
    );
  });

  it("a host frozen between its claim and its fire: another takes the tick over once the claim lapses, and the frozen host's late fire is refused", async () => {
    vi.setSystemTime(Date.parse("2026-01-01T00:00:30Z"));
    const stores = createMemoryStores();
    let thaw!: () => void;
    const thawed = new Promise<void>((resolve) => {
      thaw = resolve;
    });
    let frozenAt: number | undefined;
    // Host a's view of the stores: its first fire waits until thawed, then goes to the store.
    const frozen: FlowStores = {
      ...stores,
      schedules: {
        claimTick: (...args) => stores.schedules.claimTick(...args),
        latestTick: (...args) => stores.schedules.latestTick(...args),
        fireTick: async (...args) => {
          if (frozenAt === undefined) {
            frozenAt = Date.now();
            await thawed;
          }
          return stores.schedules.fireTick(...args);
        },
      },
    };
    const a = recordingLogger();
    const flow = clockFlow({ everyMinute: { cron: "* * * * *" } });
    await startHost([flow], frozen, { hostId: "a", leaseMs: 1_000, logger: a.logger });
    await startHost([flow], stores, { hostId: "b", leaseMs: 1_000 });
    await advance(30_000);
    expect(frozenAt).toBe(Date.parse("2026-01-01T00:01:00Z"));
    expect(await scheduledRequests(stores), "a holds the claim: nothing fired yet").toEqual([]);

    await advance(1_500);
    const [taken] = await scheduledRequests(stores);
    expect(scheduledAt(taken!)).toBe("2026-01-01T00:01:00.000Z");
    expect(await stores.schedules.latestTick("clock", "everyMinute")).toMatchObject({
      epoch: 2,
      claim: { hostId: "b" },
      requestId: taken!.id,
    });

    thaw();
    await settleAll();
    expect(await scheduledRequests(stores), "a's late fire stored nothing").toHaveLength(1);
    expect(a.lines.some((l) => l.msg === "scheduled tick taken over; not fired here")).toBe(true);
  });
});

describe("startup checks", () => {
  it.each([
    [
      "a cron expression that does not parse",
      { cron: "every minute" },
      /schedule "broken": "cron" "every minute"/,
    ],
    ["a cron field out of range", { cron: "61 * * * *" }, /"cron" "61 \* \* \* \*" is not a cron expression/],
    ["a cron expression that never fires", { cron: "0 0 30 2 *" }, /never fires/],
    ["an unknown time zone", { cron: "* * * * *", timezone: "Mars/Olympus" }, /"timezone" "Mars\/Olympus"/],
  ])(
    "%s fails start() with a DefinitionError naming the flow and the schedule",
    async (_, config, message) => {
      const stores = createMemoryStores();
      const host = createFlowHost({ flows: [clockFlow({ broken: config })], stores, logger: silentLogger });
      hosts.push(host);
      const error = await host.start().catch((e: unknown) => e);
      expect(isFlowError(error) && error.code).toBe("definition-error");
      expect((error as Error).message).toMatch(/Flow "clock" schedule "broken"/);
      expect((error as Error).message).toMatch(message);
      expect(host.started).toBe(false);
      await advance(120_000);
      expect(await scheduledRequests(stores)).toEqual([]);
    },
  );
});
