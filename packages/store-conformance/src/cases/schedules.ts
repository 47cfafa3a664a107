import type { FlowStores, ScheduleTick } from "@flowrt/core";
import { hasErrorCode } from "@flowrt/core";
import { expect } from "vitest";
import { defineCase } from "../case.js";
import { uid } from "../fixtures.js";

/** Rounds of the races: enough for a check-then-await store to be caught. */
const RACE_ROUNDS = 30;

/** A tick of a schedule of its own (fresh ids: the store may be shared). */
function freshTick(at = 1_767_225_600_000): ScheduleTick {
  return { flowId: uid("flow"), schedule: uid("schedule"), at };
}

async function expectLeaseLost(fire: Promise<unknown>, what: string): Promise<void> {
  const outcome = await fire.then(
    () => "landed",
    (error: unknown) => (hasErrorCode(error, "lease-lost") ? "lease-lost" : error),
  );
  expect(outcome, what).toBe("lease-lost");
}

/** Settles to whether the call landed; a `lease-lost` refusal is `false`, anything else throws. */
async function landed(call: Promise<unknown>): Promise<boolean> {
  try {
    await call;
    return true;
  } catch (error) {
    if (hasErrorCode(error, "lease-lost")) return false;
    throw error;
  }
}

export const scheduleCases = [
  defineCase(
    "schedules/claim-once",
    "a tick is claimed once (epoch 1); a second claim while the first holds is refused with the tick as stored",
    async (stores) => {
      const s = stores.schedules;
      const tick = freshTick();
      const now = Date.now();
      expect(await s.latestTick(tick.flowId, tick.schedule)).toBeNull();
      const first = await s.claimTick(tick, { hostId: "host-a", until: now + 60_000 }, now);
      expect(first).toEqual({
        ok: true,
        record: { ...tick, claim: { hostId: "host-a", until: now + 60_000 }, epoch: 1 },
      });
      const second = await s.claimTick(tick, { hostId: "host-b", until: now + 60_000 }, now);
      expect(second).toEqual({
        ok: false,
        current: { ...tick, claim: { hostId: "host-a", until: now + 60_000 }, epoch: 1 },
      });
      expect(await s.latestTick(tick.flowId, tick.schedule)).toEqual({
        ...tick,
        claim: { hostId: "host-a", until: now + 60_000 },
        epoch: 1,
      });
    },
  ),
  defineCase(
    "schedules/fire",
    "a fire under the current claim lands once and is read back; a second fire, a stale epoch and an unclaimed tick are lease-lost and store nothing",
    async (stores) => {
      const s = stores.schedules;
      const now = Date.now();
      const unclaimed = freshTick();
      await expectLeaseLost(s.fireTick(unclaimed, 1, "request-x"), "fire of a tick never claimed");
      expect(await s.latestTick(unclaimed.flowId, unclaimed.schedule), "nothing stored").toBeNull();

      const tick = freshTick();
      await s.claimTick(tick, { hostId: "host-a", until: now + 60_000 }, now);
      await expectLeaseLost(s.fireTick(tick, 2, "request-x"), "fire under an epoch never claimed");
      expect((await s.latestTick(tick.flowId, tick.schedule))?.requestId).toBeUndefined();
      await s.fireTick(tick, 1, "request-1");
      expect(await s.latestTick(tick.flowId, tick.schedule)).toMatchObject({
        epoch: 1,
        requestId: "request-1",
      });
      await expectLeaseLost(s.fireTick(tick, 1, "request-2"), "a second fire of a fired tick");
      expect((await s.latestTick(tick.flowId, tick.schedule))?.requestId).toBe("request-1");
      // Fired: not claimable again, even once its claim has long expired.
      const late = await s.claimTick(tick, { hostId: "host-b", until: now + 120_000 }, now + 100_000);
      expect(late).toMatchObject({ ok: false, current: { at: tick.at, requestId: "request-1" } });
    },
  ),
  defineCase(
    "schedules/take-over",
    "an unfired tick whose claim expired is taken over with the next epoch; the old claim's fire is then lease-lost",
    async (stores) => {
      const s = stores.schedules;
      const tick = freshTick();
      const now = Date.now();
      await s.claimTick(tick, { hostId: "host-a", until: now + 1_000 }, now);
      // Still held at its last millisecond.
      expect(await s.claimTick(tick, { hostId: "host-b", until: now + 2_000 }, now + 999)).toMatchObject({
        ok: false,
        current: { epoch: 1, claim: { hostId: "host-a" } },
      });
      const taken = await s.claimTick(tick, { hostId: "host-b", until: now + 61_000 }, now + 1_000);
      expect(taken).toEqual({
        ok: true,
        record: { ...tick, claim: { hostId: "host-b", until: now + 61_000 }, epoch: 2 },
      });
      await expectLeaseLost(s.fireTick(tick, 1, "request-a"), "the first claim's fire after a take-over");
      expect((await s.latestTick(tick.flowId, tick.schedule))?.requestId).toBeUndefined();
      await s.fireTick(tick, 2, "request-b");
      expect(await s.latestTick(tick.flowId, tick.schedule)).toMatchObject({
        epoch: 2,
        requestId: "request-b",
        claim: { hostId: "host-b" },
      });
    },
  ),
  defineCase(
    "schedules/newest-and-superseded",
    "latestTick is the greatest tick time, whatever the claim order; a tick older than it with no record is refused (superseded) while an older unfired claim can still be taken over",
    async (stores) => {
      const s = stores.schedules;
      const base = freshTick();
      const at = (offset: number): ScheduleTick => ({ ...base, at: base.at + offset });
      const now = Date.now();
      await s.claimTick(at(2_000), { hostId: "host-a", until: now + 500 }, now);
      await s.claimTick(at(5_000), { hostId: "host-a", until: now + 500 }, now);
      await s.fireTick(at(5_000), 1, "request-5");
      expect(await s.latestTick(base.flowId, base.schedule)).toMatchObject({ at: base.at + 5_000 });
      // A tick between them, never claimed: too late.
      const skipped = await s.claimTick(at(3_000), { hostId: "host-b", until: now + 60_000 }, now);
      expect(skipped).toMatchObject({ ok: false, current: { at: base.at + 5_000 } });
      // The older tick claimed and not fired stays until it is taken over and fired.
      const taken = await s.claimTick(at(2_000), { hostId: "host-b", until: now + 60_000 }, now + 1_000);
      expect(taken).toMatchObject({ ok: true, record: { at: base.at + 2_000, epoch: 2 } });
      await s.fireTick(at(2_000), 2, "request-2");
      expect(await s.latestTick(base.flowId, base.schedule)).toMatchObject({
        at: base.at + 5_000,
        requestId: "request-5",
      });
      // Other schedules and flows are apart.
      expect(await s.latestTick(base.flowId, uid("schedule"))).toBeNull();
      expect(await s.latestTick(uid("flow"), base.schedule)).toBeNull();
      const sibling = { ...base, schedule: uid("schedule"), at: base.at + 1_000 };
      expect(await s.claimTick(sibling, { hostId: "host-c", until: now + 60_000 }, now)).toMatchObject({
        ok: true,
        record: { epoch: 1 },
      });
    },
  ),
  defineCase(
    "schedules/claim-race",
    "concurrent claims of one tick from two instances sharing the storage: exactly one lands",
    async (stores, peer) => {
      const other: FlowStores = peer === undefined ? stores : await peer();
      const now = Date.now();
      for (let round = 0; round < RACE_ROUNDS; round++) {
        const tick = freshTick();
        const claims = await Promise.all(
          [stores, other, stores, other].map((s, i) =>
            s.schedules.claimTick(tick, { hostId: `host-${i}`, until: now + 60_000 }, now),
          ),
        );
        expect(claims.filter((c) => c.ok).length, `round ${round}: claims that landed`).toBe(1);
      }
    },
  ),
  defineCase(
    "schedules/fire-race",
    "a fire under an expired claim racing a take-over from another instance: exactly one of them lands",
    async (stores, peer) => {
      const other: FlowStores = peer === undefined ? stores : await peer();
      const now = Date.now();
      for (let round = 0; round < RACE_ROUNDS; round++) {
        const tick = freshTick();
        await stores.schedules.claimTick(tick, { hostId: "host-a", until: now - 1 }, now - 1_000);
        const fire = () => landed(stores.schedules.fireTick(tick, 1, "request-a"));
        const claim = () => other.schedules.claimTick(tick, { hostId: "host-b", until: now + 60_000 }, now);
        // Each call issued first in turn: a store that settles them in call order is tried both ways.
        const [fired, takeOver] =
          round % 2 === 0
            ? await Promise.all([fire(), claim()])
            : await Promise.all([claim(), fire()]).then(([c, f]) => [f, c] as const);
        expect([fired, takeOver.ok].filter(Boolean).length, `round ${round}: fire and take-over`).toBe(1);
        const stored = await stores.schedules.latestTick(tick.flowId, tick.schedule);
        expect(stored?.requestId === "request-a", `round ${round}: fired as stored`).toBe(fired);
      }
    },
  ),
] as const;
