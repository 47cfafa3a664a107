import type { ActiveRequestEntry, FlowStores, RequestRecord } from "@flowrt/core";
import { expect } from "vitest";
import { defineCase } from "../case.js";
import { requestRecord, uid } from "../fixtures.js";

/** Stores a request with two events and an active entry. */
async function run(stores: FlowStores, overrides: Partial<RequestRecord>): Promise<RequestRecord> {
  const record = requestRecord({ status: "running", ...overrides });
  await stores.requests.create(record);
  for (const n of [1, 2]) {
    await stores.requests.appendEvent({
      requestId: record.id,
      type: "text.delta",
      at: record.createdAt,
      data: { n },
    });
  }
  const entry: ActiveRequestEntry = {
    requestId: record.id,
    sessionId: record.sessionId,
    flowId: record.flowId,
    userId: record.userId,
    action: record.action,
    startedAt: record.createdAt,
  };
  if (record.orgId !== undefined) entry.orgId = record.orgId;
  await stores.requests.markActive(entry);
  return record;
}

async function presence(stores: FlowStores, records: RequestRecord[]) {
  const active = new Set((await stores.requests.listActive({})).map((entry) => entry.requestId));
  return Promise.all(
    records.map(async (record) => ({
      id: record.id,
      stored: (await stores.requests.get(record.id)) !== null,
      events: (await stores.requests.readEvents(record.id)).length,
      active: active.has(record.id),
    })),
  );
}

const gone = (record: RequestRecord) => ({ id: record.id, stored: false, events: 0, active: false });
const kept = (record: RequestRecord) => ({ id: record.id, stored: true, events: 2, active: true });

export const requestRemovalCases = [
  defineCase(
    "requests/remove-by-user",
    "removeByUser removes a user's requests in every session (narrowed to one org when given) with their events and active entries, and no one else's",
    async (stores) => {
      const userId = uid("user");
      const [orgA, orgB] = [uid("org"), uid("org")];
      const sessionId = uid("session");
      const inA = await run(stores, { userId, orgId: orgA, sessionId });
      const inA2 = await run(stores, { userId, orgId: orgA });
      const inB = await run(stores, { userId, orgId: orgB, sessionId });
      const personal = await run(stores, { userId });
      // A colleague in the same session and org, and a user whose id the target's is a prefix of.
      const colleague = await run(stores, { orgId: orgA, sessionId });
      const lookalike = await run(stores, { userId: `${userId}-2`, orgId: orgA });
      const all = [inA, inA2, inB, personal, colleague, lookalike];

      expect(await stores.requests.removeByUser(userId, { orgId: orgA })).toBe(2);
      expect(await presence(stores, all)).toEqual([
        gone(inA),
        gone(inA2),
        kept(inB),
        kept(personal),
        kept(colleague),
        kept(lookalike),
      ]);
      expect(await stores.requests.removeByUser(userId, { orgId: orgA })).toBe(0);
      expect((await stores.requests.listBySession(sessionId, { limit: 10 })).map((r) => r.id).sort()).toEqual(
        [inB.id, colleague.id].sort(),
      );

      expect(await stores.requests.removeByUser(userId)).toBe(2);
      expect(await presence(stores, all)).toEqual([
        gone(inA),
        gone(inA2),
        gone(inB),
        gone(personal),
        kept(colleague),
        kept(lookalike),
      ]);
      expect(await stores.requests.removeByUser(userId)).toBe(0);
      expect(await stores.requests.removeByUser(uid("user"))).toBe(0);
      expect((await stores.requests.listBySession(sessionId, { limit: 10 })).map((r) => r.id)).toEqual([
        colleague.id,
      ]);
    },
  ),
] as const;
