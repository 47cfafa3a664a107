import type { PrincipalResolver, SessionRecord } from "@flowrt/core";
import request from "supertest";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { API, as, expectProblem } from "./testing/http.js";
import { headerResolver, lab, open, releaseHeld, shared } from "./testing/lab-flows.js";
import { createSession, invoke, type Lab, running, serveLab } from "./testing/lab-server.js";
import { dumpStores } from "./testing/store-hooks.js";

let s: Lab;
beforeAll(async () => {
  s = await serveLab();
});
afterAll(() => s.close());

describe("POST /:flowId/sessions", () => {
  it("201 { session } with the architecture's fields; with a resolver the principal wins over a body userId", async () => {
    const res = await request(s.url)
      .post(`${API}/lab/sessions`)
      .set(as("ada", { "x-org": "acme" }))
      .send({ userId: "mallory", orgId: "evil", title: "T", metadata: { a: 1 } })
      .expect(201);
    expect(res.headers["content-type"]).toMatch(/^application\/json/);
    expect(res.body.session).toMatchObject({
      id: expect.any(String),
      flowId: "lab",
      flowKind: "lab",
      userId: "ada",
      orgId: "acme",
      title: "T",
      metadata: { a: 1 },
      createdAt: expect.any(String),
    });
    const stored = await s.stores.sessions.get(res.body.session.id);
    expect(stored).toMatchObject({ userId: "ada", orgId: "acme", flowId: "lab" });
  });

  it("without any resolver body.userId names the owner (development default)", async () => {
    const res = await request(s.url).post(`${API}/open/sessions`).send({ userId: "bob" }).expect(201);
    expect(res.body.session).toMatchObject({ flowId: "open", userId: "bob" });
  });

  it("without any resolver body.orgId binds the session's org; an action naming another org is refused, one naming none acts in it", async () => {
    const created = await request(s.url)
      .post(`${API}/open/sessions`)
      .send({ userId: "bob", orgId: "acme" })
      .expect(201);
    const session = created.body.session as SessionRecord;
    expect(session).toMatchObject({ userId: "bob", orgId: "acme" });
    expect(await s.stores.sessions.get(session.id)).toMatchObject({ userId: "bob", orgId: "acme" });

    const before = await dumpStores(s.stores);
    expectProblem(
      await request(s.url)
        .post(`${API}/open/actions/touch`)
        .send({ userId: "bob", orgId: "other", sessionId: session.id, input: { key: "x", title: "X" } }),
      403,
      "org-binding-mismatch",
    );
    expect(await dumpStores(s.stores)).toEqual(before);

    for (const [i, body] of [{ orgId: "acme" }, {}].entries()) {
      const started = await request(s.url)
        .post(`${API}/open/actions/touch`)
        .send({ userId: "bob", sessionId: session.id, input: { key: `k${i}`, title: "T" }, ...body })
        .expect(202);
      expect(await s.stores.requests.get(started.body.requestId)).toMatchObject({
        userId: "bob",
        orgId: "acme",
      });
    }
    // A new session made by an action call takes the body's org too.
    const fresh = await request(s.url)
      .post(`${API}/open/actions/touch`)
      .send({ userId: "bob", orgId: "globex", input: { key: "g", title: "G" } })
      .expect(202);
    expect(await s.stores.sessions.get(fresh.body.sessionId)).toMatchObject({
      userId: "bob",
      orgId: "globex",
    });
  });

  it("a chosen sessionId is kept; taking it again is 409 session-exists and changes nothing", async () => {
    await request(s.url)
      .post(`${API}/open/sessions`)
      .send({ userId: "bob", sessionId: "fixed-1" })
      .expect(201);
    const before = await dumpStores(s.stores);
    const res = await request(s.url)
      .post(`${API}/open/sessions`)
      .send({ userId: "eve", sessionId: "fixed-1" });
    expectProblem(res, 409, "session-exists");
    expect(await dumpStores(s.stores)).toEqual(before);
  });

  it("401 without a credential on a flow with a resolver, and nothing is created", async () => {
    const before = await dumpStores(s.stores);
    expectProblem(
      await request(s.url).post(`${API}/lab/sessions`).send({ userId: "ada" }),
      401,
      "unauthorized",
    );
    expect(await dumpStores(s.stores)).toEqual(before);
  });

  it("401 and 403 chosen by the resolver through PrincipalResolutionError", async () => {
    const expired = await request(s.url).post(`${API}/lab/sessions`).set(as("expired")).send({});
    expectProblem(expired, 401, "principal-resolution-failed");
    const banned = await request(s.url).post(`${API}/lab/sessions`).set(as("banned")).send({});
    expectProblem(banned, 403, "principal-resolution-failed");
  });

  it("404 flow-not-found for an unknown flow; 400 naming the field for a bad body", async () => {
    expectProblem(await request(s.url).post(`${API}/nope/sessions`).send({}), 404, "flow-not-found");
    const bad = await request(s.url)
      .post(`${API}/open/sessions`)
      .send({ userId: "bob", metadata: [1] });
    expect(expectProblem(bad, 400, "invalid-request").field).toBe("metadata");
    const badId = await request(s.url).post(`${API}/open/sessions`).send({ userId: "bob", sessionId: 7 });
    expect(expectProblem(badId, 400, "invalid-request").field).toBe("sessionId");
  });
});

describe("GET /sessions/:sessionId", () => {
  it("the owner reads { session } with the architecture's fields", async () => {
    const id = await createSession(s.url, "lab", as("ada"));
    const res = await request(s.url).get(`${API}/sessions/${id}`).set(as("ada")).expect(200);
    expect(res.body).toEqual({
      session: {
        id,
        flowId: "lab",
        flowKind: "lab",
        userId: "ada",
        metadata: {},
        createdAt: expect.any(String),
      },
    });
  });

  it("404 session-not-found for an unknown session, also for a malformed id", async () => {
    expectProblem(await request(s.url).get(`${API}/sessions/nope`).set(as("ada")), 404, "session-not-found");
    expectProblem(
      await request(s.url)
        .get(`${API}/sessions/${encodeURIComponent("a b!")}`)
        .set(as("ada")),
      404,
      "session-not-found",
    );
  });
});

describe("GET /sessions/:sessionId/children", () => {
  it("lists children scoped to the parent's stored owner, org, tenant and flow", async () => {
    const parent = await createSession(s.url, "lab", as("ada", { "x-org": "acme", "x-tenant": "t1" }));
    const parentRecord = (await s.stores.sessions.get(parent)) as SessionRecord;
    const child = await s.host.createSession(
      "lab",
      { source: "test", principal: { userId: "ada", orgId: "acme", tenantId: "t1" } },
      { parentSessionId: parent },
    );
    // Rows that name the parent but differ in one owner field: written straight to the store, as a
    // buggy or hostile writer would; the endpoint must not return them.
    const base = {
      ...parentRecord,
      parentSessionId: parent,
      metadata: {},
      createdAt: new Date().toISOString(),
    };
    await s.stores.sessions.create({ ...base, id: "stray-user", userId: "eve" });
    await s.stores.sessions.create({ ...base, id: "stray-org", orgId: "other" });
    await s.stores.sessions.create({ ...base, id: "stray-tenant", tenantId: "t2" });
    await s.stores.sessions.create({ ...base, id: "stray-flow", flowId: "open", flowKind: "open" });

    const res = await request(s.url)
      .get(`${API}/sessions/${parent}/children`)
      .set(as("ada", { "x-org": "acme", "x-tenant": "t1" }))
      .expect(200);
    expect(res.body.sessions.map((x: { id: string }) => x.id)).toEqual([child.id]);
    expect(res.body.sessions[0]).toMatchObject({ parentSessionId: parent, userId: "ada", orgId: "acme" });
  });
});

describe("GET /sessions/:sessionId/manifest", () => {
  it("200 for any caller once the session exists (no further gate); lists exactly the client-visible resources", async () => {
    const id = await createSession(s.url, "lab", as("ada"));
    const res = await request(s.url).get(`${API}/sessions/${id}/manifest`).expect(200);
    expect(res.body.flowKind).toBe("lab");
    const refs = res.body.resources.map((r: { ref: string }) => r.ref).sort();
    expect(refs).toEqual(["counter", "docs", "notes", "readOnly", "readme", "strict", "templated"]);
    expect(res.body.resources.find((r: { ref: string }) => r.ref === "notes")).toEqual({
      ref: "notes",
      kind: "collection",
      scope: "session",
      pattern: "notes/*",
      prefetchWindow: 0,
      hasClientData: true,
      client: {
        content: { read: true, create: true, update: true, delete: true },
        state: { read: true },
      },
    });
  });

  it("404 session-not-found for an unknown session", async () => {
    expectProblem(await request(s.url).get(`${API}/sessions/ghost/manifest`), 404, "session-not-found");
  });
});

describe("GET /sessions/:sessionId/state", () => {
  it("the snapshot carries projections only: hidden resources and raw state are absent", async () => {
    const id = await createSession(s.url, "lab", as("ada"));
    await request(s.url)
      .post(`${API}/sessions/${id}/resources/notes`)
      .set(as("ada"))
      .send({ topic: "a", content: "x" })
      .expect(201);
    const res = await request(s.url).get(`${API}/sessions/${id}/state`).set(as("ada")).expect(200);
    expect(res.body.clientData.session).toEqual({ count: 0 });
    expect(res.body.resources.session.notes).toEqual({ count: 1 });
    expect(res.body.resources.session).not.toHaveProperty("hidden");
    expect(res.body.resources.session).not.toHaveProperty("secretDoc");
  });
});

describe("GET /sessions/:sessionId/debug", () => {
  it("the development inspector returns unfiltered state, hidden resources included", async () => {
    const id = await createSession(s.url, "lab", as("ada"));
    const res = await request(s.url).get(`${API}/sessions/${id}/debug`).set(as("ada")).expect(200);
    expect(res.body.session.id).toBe(id);
    expect(res.body.resources.secretDoc).toMatchObject({ content: "server only" });
    expect(res.body.resources).toHaveProperty("hidden");
  });

  it("404 inspector-disabled when the host disables it", async () => {
    const off = await serveLab({ inspector: false });
    try {
      const id = await createSession(off.url, "lab", as("ada"));
      expectProblem(
        await request(off.url).get(`${API}/sessions/${id}/debug`).set(as("ada")),
        404,
        "inspector-disabled",
      );
    } finally {
      await off.close();
    }
  });
});

describe("GET /sessions (listing)", () => {
  let h: Lab;
  afterEach(async () => {
    await h?.close();
  });

  it("without a host resolver only rows of flows without any resolver are listed; userId only narrows", async () => {
    h = await serveLab({ flows: [lab, open] });
    await createSession(h.url, "lab", as("ada"));
    const bob = await createSession(h.url, "open", {}, { userId: "bob" });
    const eve = await createSession(h.url, "open", {}, { userId: "eve" });
    const all = await request(h.url).get(`${API}/sessions`).set(as("ada")).expect(200);
    expect(all.body.sessions.map((x: { id: string }) => x.id).sort()).toEqual([bob, eve].sort());
    const narrowed = await request(h.url).get(`${API}/sessions?userId=bob`).expect(200);
    expect(narrowed.body.sessions.map((x: { id: string }) => x.id)).toEqual([bob]);
  });

  it("GET /active-requests follows the same scoping: without a host resolver only flows without any resolver", async () => {
    h = await serveLab({ flows: [lab, open] });
    const guarded = await invoke(h.url, "lab", "hold", {}, as("ada"));
    const openRun = await invoke(h.url, "open", "hold", { userId: "bob" });
    await running(h.stores, guarded.requestId);
    await running(h.stores, openRun.requestId);
    try {
      const all = await request(h.url).get(`${API}/active-requests`).set(as("ada")).expect(200);
      expect(all.body.requests.map((r: { requestId: string }) => r.requestId)).toEqual([openRun.requestId]);
      const narrowed = await request(h.url).get(`${API}/active-requests?userId=ada`).expect(200);
      expect(narrowed.body.requests).toEqual([]);
    } finally {
      releaseHeld();
    }
  });

  it("with a host resolver the caller sees their own rows across flows (a flow with its own resolver too); another userId yields nothing, never 403", async () => {
    h = await serveLab({ flows: [lab, shared], resolvePrincipal: headerResolver });
    const mine = await createSession(h.url, "shared", as("ada"));
    await createSession(h.url, "shared", as("eve"));
    const inLab = await createSession(h.url, "lab", as("ada"));
    const ids = (res: request.Response) => res.body.sessions.map((x: { id: string }) => x.id).sort();
    const res = await request(h.url).get(`${API}/sessions`).set(as("ada")).expect(200);
    expect(ids(res)).toEqual([mine, inLab].sort());
    const own = await request(h.url).get(`${API}/sessions?userId=ada`).set(as("ada")).expect(200);
    expect(ids(own)).toEqual([mine, inLab].sort());
    const narrowed = await request(h.url).get(`${API}/sessions?flowId=shared`).set(as("ada")).expect(200);
    expect(ids(narrowed)).toEqual([mine]);
    const other = await request(h.url).get(`${API}/sessions?userId=eve`).set(as("ada")).expect(200);
    expect(other.body.sessions).toEqual([]);
    // Specification: listing endpoints are never rejected; an unidentified caller gets an empty list.
    const anonymous = await request(h.url).get(`${API}/sessions`).expect(200);
    expect(anonymous.body).toEqual({ sessions: [], nextCursor: null });
  });

  it("a caller the host resolver cannot identify gets 200 and an empty list on both listings, never 401/403", async () => {
    // The lab header resolver, plus a credential whose check fails with a plain error (a store outage, say).
    const hostResolver: PrincipalResolver = (context) => {
      if (context.request?.headers["x-user"] === "crash") throw new Error("token store unreachable");
      return headerResolver(context);
    };
    h = await serveLab({ flows: [lab, shared], resolvePrincipal: hostResolver });
    await createSession(h.url, "shared", as("ada"));
    const held = await invoke(h.url, "shared", "hold", {}, as("ada"));
    await running(h.stores, held.requestId);
    try {
      // No credential (the resolver answers null), PrincipalResolutionError 401 and 403, and a plain throw.
      for (const headers of [{}, as("expired"), as("banned"), as("crash")]) {
        for (const query of ["", "?userId=ada", "?flowId=shared"]) {
          const sessions = await request(h.url).get(`${API}/sessions${query}`).set(headers);
          expect({ status: sessions.status, body: sessions.body }).toEqual({
            status: 200,
            body: { sessions: [], nextCursor: null },
          });
          expect(sessions.headers["content-type"]).toMatch(/^application\/json/);
          const active = await request(h.url).get(`${API}/active-requests${query}`).set(headers);
          expect({ status: active.status, body: active.body }).toEqual({
            status: 200,
            body: { requests: [], nextCursor: null },
          });
        }
      }
      // The caller still sees their own rows.
      const own = await request(h.url).get(`${API}/active-requests`).set(as("ada")).expect(200);
      expect(own.body.requests.map((r: { requestId: string }) => r.requestId)).toEqual([held.requestId]);
    } finally {
      releaseHeld();
    }
  });

  it("a repeated userId query only narrows: a row matches every value, so two different values list nothing", async () => {
    h = await serveLab({ flows: [lab, shared], resolvePrincipal: headerResolver });
    const mine = await createSession(h.url, "shared", as("ada"));
    await createSession(h.url, "shared", as("eve"));
    const held = await invoke(h.url, "shared", "hold", { sessionId: mine }, as("ada"));
    await running(h.stores, held.requestId);
    try {
      const ids = (res: request.Response) =>
        (res.body.sessions ?? res.body.requests).map(
          (x: { id?: string; requestId?: string }) => x.id ?? x.requestId,
        );
      for (const [query, sessions, requests] of [
        ["?userId=ada&userId=ada", [mine], [held.requestId]],
        ["?userId=ada&userId=eve", [], []],
        ["?userId=eve&userId=ada", [], []],
        ["?userId=eve&userId=eve", [], []],
      ] as const) {
        const listed = await request(h.url).get(`${API}/sessions${query}`).set(as("ada")).expect(200);
        expect(ids(listed)).toEqual(sessions);
        const active = await request(h.url).get(`${API}/active-requests${query}`).set(as("ada")).expect(200);
        expect(ids(active)).toEqual(requests);
      }
      // A repeated flowId narrows the same way instead of refusing the listing.
      const sameFlow = await request(h.url)
        .get(`${API}/sessions?flowId=shared&flowId=shared`)
        .set(as("ada"))
        .expect(200);
      expect(ids(sameFlow)).toEqual([mine]);
      const twoFlows = await request(h.url)
        .get(`${API}/sessions?flowId=shared&flowId=lab`)
        .set(as("ada"))
        .expect(200);
      expect(twoFlows.body).toEqual({ sessions: [], nextCursor: null });
    } finally {
      releaseHeld();
    }
  });

  it("a session bound to a tenant is listed only to its user in that tenant, as the addressed routes decide", async () => {
    h = await serveLab({ flows: [shared], resolvePrincipal: headerResolver });
    const t1 = as("ada", { "x-tenant": "t1" });
    const mine = await createSession(h.url, "shared", t1);
    const held = await invoke(h.url, "shared", "hold", { sessionId: mine }, t1);
    await running(h.stores, held.requestId);
    try {
      const listed = await request(h.url).get(`${API}/sessions`).set(t1).expect(200);
      expect(listed.body.sessions.map((x: { id: string }) => x.id)).toEqual([mine]);
      const active = await request(h.url).get(`${API}/active-requests`).set(t1).expect(200);
      expect(active.body.requests.map((r: { requestId: string }) => r.requestId)).toEqual([held.requestId]);
      for (const other of [as("ada", { "x-tenant": "t2" }), as("ada")]) {
        // The same user in another tenant (or none) is another owner: 403 on the session, nothing listed.
        expectProblem(await request(h.url).get(`${API}/sessions/${mine}`).set(other), 403, "forbidden");
        expect((await request(h.url).get(`${API}/sessions`).set(other).expect(200)).body).toEqual({
          sessions: [],
          nextCursor: null,
        });
        expect((await request(h.url).get(`${API}/active-requests`).set(other).expect(200)).body).toEqual({
          requests: [],
          nextCursor: null,
        });
      }
    } finally {
      releaseHeld();
    }
  });

  it("without a host resolver a repeated userId narrows too: one owner's rows, or none for two owners", async () => {
    h = await serveLab({ flows: [lab, open] });
    const bob = await createSession(h.url, "open", {}, { userId: "bob" });
    await createSession(h.url, "open", {}, { userId: "eve" });
    const bobRun = await invoke(h.url, "open", "hold", { sessionId: bob, userId: "bob" });
    await running(h.stores, bobRun.requestId);
    try {
      const same = await request(h.url).get(`${API}/sessions?userId=bob&userId=bob`).expect(200);
      expect(same.body.sessions.map((x: { id: string }) => x.id)).toEqual([bob]);
      const both = await request(h.url).get(`${API}/sessions?userId=bob&userId=eve`).expect(200);
      expect(both.body).toEqual({ sessions: [], nextCursor: null });
      const activeSame = await request(h.url).get(`${API}/active-requests?userId=bob&userId=bob`).expect(200);
      expect(activeSame.body.requests.map((r: { requestId: string }) => r.requestId)).toEqual([
        bobRun.requestId,
      ]);
      const activeBoth = await request(h.url).get(`${API}/active-requests?userId=bob&userId=eve`).expect(200);
      expect(activeBoth.body).toEqual({ requests: [], nextCursor: null });
    } finally {
      releaseHeld();
    }
  });
});
