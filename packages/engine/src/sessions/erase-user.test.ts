import type { JsonObject, RequestRecord, SessionRecord } from "@flowrt/core";
import { afterEach, describe, expect, it } from "vitest";
import { releaseHolds } from "./testing/lifecycle-flows.js";
import { type LifecycleServer, serveLifecycle } from "./testing/lifecycle-server.js";
import { census } from "./testing/store-census.js";

/**
 * `host.eraseUser`: every session of the user in every flow (as DELETE removes it), their user-scope data in every
 * bucket, their request records; another user's records, and the org's, stay byte for byte as they were.
 */

let s: LifecycleServer | undefined;
afterEach(async () => {
  releaseHolds();
  await s?.close();
  s = undefined;
});

const IDS = { users: ["ada", "bob"], orgs: ["acme"], buckets: ["notes", "journal", "vault"] };

/** Sessions, requests and their events, scope state and resources of one user (and, with `org`, the org's). */
function sliceOf(dump: JsonObject, userId: string, org?: string): JsonObject {
  const sessions = Object.fromEntries(
    Object.entries(dump.sessions as JsonObject).filter(
      ([, record]) => (record as unknown as SessionRecord | null)?.userId === userId,
    ),
  ) as JsonObject;
  const requests = Object.fromEntries(
    Object.entries(dump.requests as JsonObject).filter(
      ([, record]) => (record as unknown as RequestRecord | null)?.userId === userId,
    ),
  ) as JsonObject;
  const events = Object.fromEntries(
    Object.entries(dump.events as JsonObject).filter(([id]) => id in requests),
  ) as JsonObject;
  const owned = (name: string) => {
    const [scope, id] = name.split("/") as [string, string];
    return (
      (scope === "session" && id in sessions) ||
      (scope === "user" && id === userId) ||
      (scope === "org" && id === org)
    );
  };
  const pick = (map: unknown) =>
    Object.fromEntries(Object.entries(map as JsonObject).filter(([name]) => owned(name))) as JsonObject;
  return {
    sessions,
    requests,
    events,
    active: (dump.active as { userId: string }[]).filter((entry) => entry.userId === userId) as never,
    scopes: pick(dump.scopes),
    resources: pick(dump.resources),
  };
}

const count = (map: unknown) => Object.keys(map as JsonObject).length;

/** Ada and Bob, each with sessions in three flows (a child, a running request, user state in an isolated flow). */
async function people(server: LifecycleServer) {
  const adas: string[] = [];
  const run = async (flow: string, user: string, action: string, body: Record<string, unknown> = {}) => {
    const answer = await server.invoke(flow, action, user, body);
    await server.until(answer.requestId, ["completed", "failed"]);
    return answer;
  };
  const inAcme = await run("notes", "ada", "touch", { org: "acme" });
  adas.push(inAcme.sessionId);
  await run("notes", "ada", "fill", { sessionId: inAcme.sessionId, org: "acme", input: { count: 20 } });
  const child = await server.host.createSession(
    "notes",
    { source: "test", principal: { userId: "ada", orgId: "acme" } },
    { parentSessionId: inAcme.sessionId },
  );
  adas.push(child.id);
  await run("notes", "ada", "touch", { sessionId: child.id, org: "acme" });
  adas.push((await run("journal", "ada", "touch")).sessionId);
  adas.push((await run("vault", "ada", "touch", { input: { key: "secret" } })).sessionId);
  const held = await server.invoke("journal", "hold", "ada");
  await server.until(held.requestId, ["running"]);
  adas.push(held.sessionId);

  await run("notes", "bob", "touch", { org: "acme" });
  await run("journal", "bob", "fill", { input: { count: 3 } });
  await run("vault", "bob", "touch", { input: { key: "bobs" } });
  return { adas, held: held.requestId };
}

describe("host.eraseUser", () => {
  it("leaves no record of the user; another user's records and the org's stay byte for byte; idempotent", async () => {
    s = await serveLifecycle();
    const { adas, held } = await people(s);
    const before = await census(s.stores, IDS);
    const ada = sliceOf(before, "ada");
    // What there is to erase: sessions in three flows, user state in the shared bucket and in vault's own.
    expect(count(ada.sessions)).toBe(5);
    expect(Object.keys(ada.scopes as JsonObject)).toEqual(
      expect.arrayContaining(["user/ada/shared", "user/ada/vault"]),
    );
    expect(Object.keys(ada.resources as JsonObject)).toEqual(
      expect.arrayContaining(["user/ada/shared", "user/ada/vault"]),
    );
    const bobAndOrg = JSON.stringify(sliceOf(before, "bob", "acme"));

    const counts = await s.host.eraseUser({ userId: "ada" });
    expect(counts).toMatchObject({ sessions: 5, requests: count(ada.requests) });
    expect(counts.states).toBe(count(ada.scopes));

    const after = await census(s.stores, {
      ...IDS,
      sessions: adas,
      requests: Object.keys(ada.requests as JsonObject),
    });
    const left = sliceOf(after, "ada");
    expect(left).toEqual({ sessions: {}, requests: {}, events: {}, active: [], scopes: {}, resources: {} });
    for (const id of adas) expect(after.sessions).toHaveProperty(id, null);
    for (const id of Object.keys(ada.requests as JsonObject)) {
      expect(after.requests).toHaveProperty(id, null);
      expect(after.events).toHaveProperty(id, []);
    }
    expect(JSON.stringify(after)).not.toContain('"ada"');
    expect(await s.stores.requests.get(held)).toBeNull();
    expect(JSON.stringify(sliceOf(after, "bob", "acme"))).toBe(bobAndOrg);

    expect(await s.host.eraseUser({ userId: "ada" })).toEqual({
      sessions: 0,
      requests: 0,
      events: 0,
      states: 0,
      resources: 0,
      contents: 0,
    });
  }, 60_000);

  it("with orgId, only the user's sessions and requests in that org go; their user-scope data stays", async () => {
    s = await serveLifecycle();
    const { adas } = await people(s);
    const before = await census(s.stores, IDS);
    const adaSessions = Object.values(
      sliceOf(before, "ada").sessions as JsonObject,
    ) as unknown as SessionRecord[];
    const inAcme = adaSessions.filter((session) => session.orgId === "acme").map((session) => session.id);
    expect(inAcme).toHaveLength(2);
    const counts = await s.host.eraseUser({ userId: "ada", orgId: "acme" });
    expect(counts.sessions).toBe(2);
    const after = await census(s.stores, { ...IDS, sessions: adas });
    for (const id of adas) {
      if (inAcme.includes(id)) expect(after.sessions).toHaveProperty(id, null);
      else expect((after.sessions as JsonObject)[id]).not.toBeNull();
    }
    const requestsLeft = Object.values(
      sliceOf(after, "ada").requests as JsonObject,
    ) as unknown as RequestRecord[];
    expect(requestsLeft.length).toBeGreaterThan(0);
    for (const request of requestsLeft) expect(request.orgId).toBeUndefined();
    const userScopes = (dump: JsonObject) =>
      Object.fromEntries(
        Object.entries(sliceOf(dump, "ada").scopes as JsonObject).filter(([name]) =>
          name.startsWith("user/"),
        ),
      );
    expect(Object.keys(userScopes(before))).toHaveLength(2);
    expect(userScopes(after)).toEqual(userScopes(before));
  }, 60_000);

  it("refuses a missing or empty user id before anything is read", async () => {
    s = await serveLifecycle();
    await expect(s.host.eraseUser({ userId: "" })).rejects.toMatchObject({ code: "invalid-request" });
    await expect(s.host.eraseUser({ userId: "ada", orgId: "" })).rejects.toMatchObject({
      code: "invalid-request",
    });
    await expect(s.host.eraseUser(undefined as never)).rejects.toMatchObject({ code: "invalid-request" });
  });
});
