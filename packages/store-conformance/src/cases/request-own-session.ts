import { expect } from "vitest";
import { defineCase } from "../case.js";
import { requestRecord, sessionRecord, uid } from "../fixtures.js";

/** A request and the new session it runs in, as `create(record, { session })` takes them. */
function requestWithSession(metadata: Record<string, boolean> = {}) {
  const userId = uid("user");
  const orgId = uid("org");
  const session = sessionRecord({ userId, orgId, metadata });
  const request = requestRecord({ sessionId: session.id, userId, orgId });
  return { session, request };
}

/** `requests.create(record, { session })`: the request and its own new session, both or neither. */
export const requestOwnSessionCases = [
  defineCase(
    "request-session/create",
    "create with a session stores both, the session as sessions.create would (listed by user and org)",
    async (stores) => {
      const { session, request } = requestWithSession({ ephemeral: true });
      expect(await stores.requests.create(request, { session })).toBe(true);
      expect(await stores.requests.get(request.id)).toEqual(request);
      expect(await stores.sessions.get(session.id)).toEqual(session);
      const byUser = await stores.sessions.list({ userId: session.userId, limit: 10 });
      expect(byUser).toEqual({ items: [session], total: 1 });
      expect(await stores.sessions.list({ orgId: session.orgId, limit: 10 })).toEqual({
        items: [session],
        total: 1,
      });
      expect(await stores.requests.listBySession(session.id, { limit: 10 })).toEqual([request]);
      // The session is an ordinary one: it takes patches, and a second create of it is refused.
      expect((await stores.sessions.update(session.id, { title: "t" }))?.title).toBe("t");
      expect(await stores.sessions.create(session)).toBe(false);

      // Retention treats it as any session: an ephemeral one goes with its last request.
      const finished = await stores.requests.update(request.id, 1, {
        status: "completed",
        completedAt: "2000-01-01T00:00:00.000Z",
      });
      expect(finished.ok).toBe(true);
      await stores.requests.purgeFinished({ maxAgeMs: 1000, now: Date.parse("2000-01-02T00:00:00.000Z") });
      expect(await stores.requests.get(request.id)).toBeNull();
      expect(await stores.sessions.get(session.id)).toBeNull();
    },
  ),

  defineCase(
    "request-session/refusals",
    "create with a session answers false and writes nothing when the request id or the session id exists",
    async (stores) => {
      // The request id exists: no session is created.
      const taken = requestRecord();
      expect(await stores.requests.create(taken)).toBe(true);
      const { session: unborn } = requestWithSession();
      const again = { ...requestRecord({ sessionId: unborn.id, userId: unborn.userId }), id: taken.id };
      expect(await stores.requests.create(again, { session: unborn })).toBe(false);
      expect(await stores.sessions.get(unborn.id)).toBeNull();
      expect(await stores.sessions.list({ userId: unborn.userId, limit: 10 })).toEqual({
        items: [],
        total: 0,
      });
      expect(await stores.requests.get(taken.id)).toEqual(taken);

      // The session id exists: the request is not created and the session is unchanged.
      const existing = sessionRecord({ metadata: { mine: true } });
      expect(await stores.sessions.create(existing)).toBe(true);
      const { session: clash, request: orphan } = requestWithSession();
      const sameId = { ...clash, id: existing.id };
      const inExisting = { ...orphan, sessionId: existing.id };
      expect(await stores.requests.create(inExisting, { session: sameId })).toBe(false);
      expect(await stores.requests.get(inExisting.id)).toBeNull();
      expect(await stores.requests.listBySession(existing.id, { limit: 10 })).toEqual([]);
      expect(await stores.sessions.get(existing.id)).toEqual(existing);
      expect(await stores.sessions.list({ userId: clash.userId, limit: 10 })).toEqual({
        items: [],
        total: 0,
      });

      // Refused without a trace: the same request then goes in with a fresh session.
      const { session: fresh } = requestWithSession();
      const retry = { ...inExisting, sessionId: fresh.id, userId: fresh.userId, orgId: fresh.orgId };
      expect(await stores.requests.create(retry, { session: fresh })).toBe(true);
      expect(await stores.sessions.get(fresh.id)).toEqual(fresh);
    },
  ),

  defineCase(
    "request-session/create-race",
    "of creates racing for one new session id, one stores its request and the session; the others store nothing",
    async (stores) => {
      const { session } = requestWithSession();
      const requests = Array.from({ length: 6 }, () =>
        requestRecord({ sessionId: session.id, userId: session.userId, orgId: session.orgId }),
      );
      const results = await Promise.all(
        requests.map((request) => stores.requests.create(request, { session })),
      );
      expect(results.filter(Boolean)).toHaveLength(1);
      const winner = requests[results.indexOf(true)]!;
      expect(await stores.requests.listBySession(session.id, { limit: 10 })).toEqual([winner]);
      for (const request of requests) {
        if (request !== winner) expect(await stores.requests.get(request.id)).toBeNull();
      }
      expect(await stores.sessions.list({ userId: session.userId, limit: 10 })).toEqual({
        items: [session],
        total: 1,
      });
    },
  ),
] as const;
