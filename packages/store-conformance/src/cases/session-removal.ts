import type { FlowStores, ScopeAddress, SessionRecord } from "@flowrt/core";
import { SHARED_BUCKET } from "@flowrt/core";
import { expect } from "vitest";
import { defineCase } from "../case.js";
import { requestRecord, sessionRecord, uid } from "../fixtures.js";

const BUCKETS = [SHARED_BUCKET, "flow-a"] as const;

/** Keys written under every address: two live (one deeper), one tombstoned, one holding only content. */
const LIVE_KEYS = ["notes/a", "notes/a/deep"];
const TOMBSTONED_KEY = "notes/b";
const CONTENT_ONLY_KEY = "blob";

/** What one address holds after {@link fillAddress}: resource keys written and content rows. */
const PER_ADDRESS = { resources: 3, contents: 2 };

async function fillAddress(stores: FlowStores, address: ScopeAddress): Promise<void> {
  expect(await stores.scopeState.put(address, { at: address.bucket }, { type: "absent" })).toMatchObject({
    ok: true,
  });
  for (const key of LIVE_KEYS) {
    expect(await stores.resources.putState(address, key, { key }, { type: "absent" })).toMatchObject({
      ok: true,
    });
  }
  await stores.resources.putContent(address, "notes/a", "body of a");
  await stores.resources.putState(address, TOMBSTONED_KEY, { key: TOMBSTONED_KEY }, { type: "absent" });
  await stores.resources.putState(address, TOMBSTONED_KEY, { key: TOMBSTONED_KEY, n: 2 }, { type: "any" });
  expect(await stores.resources.deleteState(address, TOMBSTONED_KEY, { type: "any" })).toEqual({
    ok: true,
    version: 3,
  });
  await stores.resources.putContent(address, CONTENT_ONLY_KEY, "");
}

/** Everything readable at an address, for before/after comparisons. */
async function readAddress(stores: FlowStores, address: ScopeAddress) {
  const r = stores.resources;
  return {
    state: await stores.scopeState.get(address),
    list: await r.list(address),
    count: await r.count(address),
    tombstoned: await r.getState(address, TOMBSTONED_KEY),
    contentA: await r.getContent(address, "notes/a"),
    contentOnly: await r.getContent(address, CONTENT_ONLY_KEY),
  };
}

interface Populated {
  session: SessionRecord;
  requestIds: string[];
  /** Events appended per request, in `requestIds` order. */
  events: number[];
}

/**
 * A session with two requests (one run by another user, as in an org's shared session) with events, one of them
 * listed as active, and scope state and resources in two buckets.
 */
async function populate(stores: FlowStores, session: SessionRecord): Promise<Populated> {
  expect(await stores.sessions.create(session)).toBe(true);
  const own = requestRecord({ sessionId: session.id, userId: session.userId, status: "running" });
  const colleague = requestRecord({ sessionId: session.id, status: "completed" });
  const events = [3, 2];
  for (const [i, record] of [own, colleague].entries()) {
    expect(await stores.requests.create(record)).toBe(true);
    for (let n = 0; n < events[i]!; n++) {
      const terminal = record.status === "completed" && n === events[i]! - 1;
      await stores.requests.appendEvent({
        requestId: record.id,
        type: terminal ? "request.completed" : "text.delta",
        at: record.createdAt,
        data: { n },
      });
    }
  }
  await stores.requests.markActive({
    requestId: own.id,
    sessionId: session.id,
    flowId: own.flowId,
    userId: own.userId,
    action: own.action,
    startedAt: own.createdAt,
  });
  for (const bucket of BUCKETS) await fillAddress(stores, { scope: "session", scopeId: session.id, bucket });
  return { session, requestIds: [own.id, colleague.id], events };
}

/** Everything readable of a populated session. */
async function readSession(stores: FlowStores, populated: Populated) {
  const { session, requestIds } = populated;
  const active = await stores.requests.listActive({});
  return {
    record: await stores.sessions.get(session.id),
    listed: (await stores.sessions.list({ userId: session.userId })).items.some((s) => s.id === session.id),
    requests: await Promise.all(requestIds.map((id) => stores.requests.get(id))),
    events: await Promise.all(requestIds.map((id) => stores.requests.readEvents(id))),
    bySession: (await stores.requests.listBySession(session.id, { limit: 10 })).map((r) => r.id).sort(),
    active: active.filter((entry) => requestIds.includes(entry.requestId)).map((entry) => entry.requestId),
    addresses: await Promise.all(
      BUCKETS.map((bucket) => readAddress(stores, { scope: "session", scopeId: session.id, bucket })),
    ),
  };
}

export const sessionRemovalCases = [
  defineCase(
    "session-removal/everything",
    "remove takes the session's requests, events, active entries, state and resources (live, tombstoned, content) in every bucket, then the record, and counts them",
    async (stores) => {
      const populated = await populate(stores, sessionRecord({ orgId: uid("org") }));
      const { session, requestIds } = populated;
      expect(await stores.sessions.markDeleting(session.id)).toBe(true);

      expect(await stores.sessions.remove(session.id)).toEqual({
        requests: 2,
        events: 5,
        states: BUCKETS.length,
        resources: PER_ADDRESS.resources * BUCKETS.length,
        contents: PER_ADDRESS.contents * BUCKETS.length,
      });

      expect(await readSession(stores, populated)).toEqual({
        record: null,
        listed: false,
        requests: [null, null],
        events: [[], []],
        bySession: [],
        active: [],
        addresses: BUCKETS.map(() => ({
          state: null,
          list: { items: [], total: 0 },
          count: 0,
          tombstoned: null,
          contentA: null,
          contentOnly: null,
        })),
      });
      expect(await stores.requests.listByStatus(["running", "completed"])).not.toContainEqual(
        expect.objectContaining({ id: requestIds[0] }),
      );
      // The tombstones went too: a key written again starts at version 1.
      for (const bucket of BUCKETS) {
        const address: ScopeAddress = { scope: "session", scopeId: session.id, bucket };
        expect(
          await stores.resources.putState(address, TOMBSTONED_KEY, { again: true }, { type: "absent" }),
        ).toEqual({ ok: true, version: 1 });
        expect(await stores.scopeState.put(address, { again: true }, { type: "absent" })).toEqual({
          ok: true,
          version: 1,
        });
      }
      // Nothing is left to remove: a second call finds no record.
      expect(await stores.sessions.remove(session.id)).toBeNull();
      expect(await stores.sessions.remove(uid("session"))).toBeNull();
    },
  ),

  defineCase(
    "session-removal/others-untouched",
    "remove leaves other sessions, other users, the user's and org's own scopes, same-id addresses of other scopes, and children as they were",
    async (stores) => {
      const userId = uid("user");
      const orgId = uid("org");
      const target = await populate(stores, sessionRecord({ userId, orgId }));
      const id = target.session.id;
      const sibling = await populate(stores, sessionRecord({ userId, orgId }));
      const stranger = await populate(stores, sessionRecord({ orgId }));
      const child = await populate(
        stores,
        sessionRecord({ userId, orgId, parentSessionId: id, rootSessionId: id }),
      );
      // The owner's user and org scopes, and user/org addresses whose id equals the session's.
      const neighbours: ScopeAddress[] = BUCKETS.flatMap((bucket) => [
        { scope: "user", scopeId: userId, bucket },
        { scope: "org", scopeId: orgId, bucket },
        { scope: "user", scopeId: id, bucket },
        { scope: "org", scopeId: id, bucket },
      ]);
      for (const address of neighbours) await fillAddress(stores, address);
      // A request of the owner in another session.
      const elsewhere = requestRecord({ sessionId: sibling.session.id, userId });
      await stores.requests.create(elsewhere);

      const before = {
        sessions: await Promise.all([sibling, stranger, child].map((p) => readSession(stores, p))),
        neighbours: await Promise.all(neighbours.map((address) => readAddress(stores, address))),
        elsewhere: await stores.requests.get(elsewhere.id),
        children: await stores.sessions.listChildren(id, { userId }),
      };
      await stores.sessions.markDeleting(id);
      expect(await stores.sessions.remove(id)).toMatchObject({ requests: 2, events: 5 });
      expect(await stores.sessions.get(id)).toBeNull();

      expect({
        sessions: await Promise.all([sibling, stranger, child].map((p) => readSession(stores, p))),
        neighbours: await Promise.all(neighbours.map((address) => readAddress(stores, address))),
        elsewhere: await stores.requests.get(elsewhere.id),
        children: await stores.sessions.listChildren(id, { userId }),
      }).toEqual(before);
      expect(before.children).toEqual([child.session]);
      expect(before.sessions[0]!.requests.every((r) => r !== null)).toBe(true);
    },
  ),

  defineCase(
    "session-removal/unmarked",
    "remove works on a session that was never marked deleting, and on one with nothing stored under it",
    async (stores) => {
      const bare = sessionRecord();
      await stores.sessions.create(bare);
      expect(await stores.sessions.remove(bare.id)).toEqual({
        requests: 0,
        events: 0,
        states: 0,
        resources: 0,
        contents: 0,
      });
      expect(await stores.sessions.get(bare.id)).toBeNull();

      const populated = await populate(stores, sessionRecord());
      expect(await stores.sessions.remove(populated.session.id)).toMatchObject({ requests: 2, states: 2 });
      expect((await readSession(stores, populated)).record).toBeNull();
    },
  ),
] as const;
