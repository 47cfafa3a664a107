import type { Fence, FlowStores } from "@flowrt/core";
import { hasErrorCode } from "@flowrt/core";
import { expect } from "vitest";
import { defineCase } from "../case.js";
import { eventually, requestRecord, sleep, uid } from "../fixtures.js";
import {
  claim,
  claimedRequest,
  claimOver,
  expectLeaseLost,
  FENCED_WRITES,
  type FencedWrite,
  prepareTarget,
  readTarget,
} from "./fenced-writes.js";

/** Rounds of the claim race: enough for a check-then-await store to be caught in both orders. */
const RACE_ROUNDS = 50;

/** A write issued concurrently with a newer claim: landed, or refused with `lease-lost` (anything else throws). */
async function raced(write: Promise<unknown>): Promise<"landed" | "refused"> {
  try {
    await write;
    return "landed";
  } catch (error) {
    if (hasErrorCode(error, "lease-lost")) return "refused";
    throw error;
  }
}

/** Runs `check` for every fenced method in turn, each on a request and a target of its own. */
async function forEachWrite(
  stores: FlowStores,
  check: (write: FencedWrite, fence: Fence) => Promise<void>,
): Promise<void> {
  for (const write of FENCED_WRITES) await check(write, await claimedRequest(stores));
}

export const fencingCases = [
  defineCase(
    "fencing/epoch-persists",
    "a request's epoch is stored by create and update, kept by updates that do not name it and after its claim is released",
    async (stores) => {
      const r = stores.requests;
      const fresh = requestRecord();
      await r.create(fresh);
      expect((await r.get(fresh.id))?.epoch ?? 0, "no claim yet: epoch absent or 0").toBe(0);
      const created = requestRecord({ status: "running", durable: true, epoch: 3 });
      await r.create(created);
      expect((await r.get(created.id))?.epoch).toBe(3);

      const { requestId } = await claimedRequest(stores);
      expect(await r.get(requestId)).toMatchObject({ epoch: 1, version: 2, claim: { hostId: "host-a" } });
      // A renewal names no epoch: it keeps the stored one.
      expect(
        await r.update(requestId, 2, { claim: { hostId: "host-a", until: Date.now() + 90_000 } }),
      ).toEqual({
        ok: true,
        version: 3,
      });
      expect((await r.get(requestId))?.epoch).toBe(1);
      // A take-over.
      expect(await claim(stores, requestId, "host-b")).toBe(2);
      expect(await r.get(requestId)).toMatchObject({ epoch: 2, version: 4, claim: { hostId: "host-b" } });
      // A lost compare-and-swap changes no epoch.
      expect(await r.update(requestId, 3, { claim: { hostId: "host-c", until: 1 }, epoch: 9 })).toMatchObject(
        {
          ok: false,
        },
      );
      expect((await r.get(requestId))?.epoch).toBe(2);
      // Finished: the claim goes, the epoch stays.
      expect(
        await r.update(requestId, 4, {
          status: "completed",
          claim: null,
          completedAt: new Date().toISOString(),
        }),
      ).toEqual({ ok: true, version: 5 });
      const finished = await r.get(requestId);
      expect(finished).toMatchObject({ status: "completed", epoch: 2, version: 5 });
      expect(finished?.claim).toBeUndefined();
      expect((await r.listByStatus(["completed"])).find((found) => found.id === requestId)?.epoch).toBe(2);
    },
  ),

  defineCase(
    "fencing/stale-epoch",
    "every fenced write under an older epoch than the stored one is refused with lease-lost and changes nothing",
    async (stores) => {
      await forEachWrite(stores, async (write, stale) => {
        const target = await prepareTarget(stores, stale.requestId);
        const before = await readTarget(stores, target);
        const received: number[] = [];
        const unsubscribe = stores.requests.subscribe(stale.requestId, (event) => received.push(event.seq));
        try {
          // Subscriptions that span processes may need a moment to become live.
          await sleep(50);
          const newer = await claim(stores, stale.requestId, "host-b");
          await expectLeaseLost(write.method, write.write(stores, target, stale), stale, newer);
          expect(
            await readTarget(stores, target),
            `${write.method}: a refused write changes nothing`,
          ).toEqual(before);
          // Under the newer claim the same write lands as the first one since the seed: no version or seq was used.
          const current = { requestId: stale.requestId, epoch: newer };
          expect(await write.write(stores, target, current), `${write.method} under the newer claim`).toEqual(
            write.landed,
          );
          expect(await readTarget(stores, target)).not.toEqual(before);
          const notified = write.method === "requests.appendEvent" ? [2] : [];
          // A refused event that reached listeners would come before the landed one, so the list would differ.
          await eventually(() => expect(received, `${write.method}: listeners notified`).toEqual(notified));
        } finally {
          unsubscribe();
        }
      });
    },
  ),

  defineCase(
    "fencing/current-epoch",
    "every fenced write under the request's current epoch lands, as it would without a fence",
    async (stores) => {
      await forEachWrite(stores, async (write, first) => {
        const target = await prepareTarget(stores, first.requestId);
        expect(await write.write(stores, target, first), `${write.method} under the first claim`).toEqual(
          write.landed,
        );
        // And under a take-over's epoch, once it is the stored one.
        const second = await prepareTarget(stores, first.requestId);
        const epoch = await claim(stores, first.requestId, "host-b");
        const before = await readTarget(stores, second);
        const landed = await write.write(stores, second, { requestId: first.requestId, epoch });
        if (write.method === "requests.appendEvent") expect(landed).toMatchObject({ seq: 4 });
        else expect(landed, `${write.method} under the take-over's claim`).toEqual(write.landed);
        expect(await readTarget(stores, second)).not.toEqual(before);
      });
    },
  ),

  defineCase(
    "fencing/missing-request",
    "every fenced write whose request is not stored is refused with lease-lost and changes nothing",
    async (stores) => {
      for (const write of FENCED_WRITES) {
        const fence = { requestId: uid("request"), epoch: 1 };
        const target = await prepareTarget(stores, fence.requestId);
        const before = await readTarget(stores, target);
        await expectLeaseLost(write.method, write.write(stores, target, fence), fence);
        expect(await readTarget(stores, target), `${write.method}: a refused write changes nothing`).toEqual(
          before,
        );
      }
    },
  ),

  defineCase(
    "fencing/unfenced",
    "a write without a fence is not checked: it lands whatever claims are stored",
    async (stores) => {
      await forEachWrite(stores, async (write, stale) => {
        const target = await prepareTarget(stores, stale.requestId);
        await claim(stores, stale.requestId, "host-b");
        expect(await write.write(stores, target), `${write.method} without a fence`).toEqual(write.landed);
      });
    },
  ),

  defineCase(
    "fencing/after-release",
    "a stale fence stays refused after the request finished and released its claim",
    async (stores) => {
      await forEachWrite(stores, async (write, stale) => {
        const target = await prepareTarget(stores, stale.requestId);
        const newer = await claim(stores, stale.requestId, "host-b");
        const { version } = (await stores.requests.get(stale.requestId))!;
        expect(
          await stores.requests.update(stale.requestId, version, {
            status: "completed",
            claim: null,
            completedAt: new Date().toISOString(),
          }),
        ).toMatchObject({ ok: true });
        const before = await readTarget(stores, target);
        await expectLeaseLost(write.method, write.write(stores, target, stale), stale, newer);
        expect(await readTarget(stores, target), `${write.method}: a refused write changes nothing`).toEqual(
          before,
        );
      });
    },
  ),

  defineCase(
    "fencing/peer-claim",
    "a claim written through another instance over the same storage refuses a stale write through this one",
    async (stores, peer) => {
      const other = peer === undefined ? stores : await peer();
      await forEachWrite(stores, async (write, stale) => {
        const target = await prepareTarget(stores, stale.requestId);
        const before = await readTarget(stores, target);
        const newer = await claim(other, stale.requestId, "host-b");
        await expectLeaseLost(write.method, write.write(stores, target, stale), stale, newer);
        expect(await readTarget(stores, target), `${write.method}: a refused write changes nothing`).toEqual(
          before,
        );
        expect(await readTarget(other, target), `${write.method}: as the other instance reads it`).toEqual(
          before,
        );
        // This instance sees the peer's claim as current, too.
        const current = { requestId: stale.requestId, epoch: newer };
        expect(await write.write(stores, target, current), `${write.method} under the peer's claim`).toEqual(
          write.landed,
        );
      });
    },
  ),

  defineCase(
    "fencing/claim-race",
    `${RACE_ROUNDS} rounds of a fenced write racing a newer claim: the write lands before the claim or is refused`,
    async (stores, peer) => {
      const claimer = peer === undefined ? stores : await peer();
      for (let round = 0; round < RACE_ROUNDS; round++) {
        const write = FENCED_WRITES[round % FENCED_WRITES.length]!;
        const stale = await claimedRequest(stores);
        const target = await prepareTarget(stores, stale.requestId);
        const before = await readTarget(stores, target);
        const label = `round ${round}, ${write.method}`;
        const stored = (await claimer.requests.get(stale.requestId))!;
        const issueWrite = () => raced(write.write(stores, target, stale));
        // What is stored right after the claim: a write that landed before the claim is in it.
        const issueClaim = async () => {
          await claimOver(claimer, stored, "host-b");
          return readTarget(stores, target);
        };
        // Each method is raced in both orders of issue.
        const writeFirst = Math.floor(round / FENCED_WRITES.length) % 2 === 0;
        const [outcome, afterClaim] = writeFirst
          ? await Promise.all([issueWrite(), issueClaim()])
          : await Promise.all([issueClaim(), issueWrite()]).then(
              ([after, result]) => [result, after] as const,
            );
        if (outcome === "landed") {
          expect(afterClaim, `${label}: the write landed after the newer claim`).not.toEqual(before);
        } else {
          expect(await readTarget(stores, target), `${label}: a refused write changes nothing`).toEqual(
            before,
          );
        }
      }
    },
  ),
] as const;
