import { defineFlow, defineResourceCollection, handler } from "@flowrt/core";
import request from "supertest";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { API, as, expectProblem } from "./testing/http.js";
import { headerResolver, releaseHeld } from "./testing/lab-flows.js";
import { createSession, finished, invoke, type Lab, running, serveLab } from "./testing/lab-server.js";
import { dumpStores } from "./testing/store-hooks.js";

/**
 * Specification, Authentication: on every addressed route (a session or request in the path) the
 * service loads the record, resolves the caller through the record's governing flow and checks the
 * owner before the handler runs: 401 without a credential, 403 for another owner, 200 for the owner.
 * A refusal writes nothing and emits no event.
 */

let s: Lab;
beforeAll(async () => {
  s = await serveLab();
});
afterEach(() => releaseHeld());
afterAll(() => s.close());

interface Fixture {
  sessionId: string;
  doneRequestId: string;
  heldRequestId: string;
}

/** A fresh session of `flowId` owned by ada, with one note, a finished request and a held one. */
async function fixture(
  flowId: string,
  owner: Record<string, string>,
  body: Record<string, unknown>,
): Promise<Fixture> {
  const sessionId = await createSession(s.url, flowId, owner, body);
  const done = await invoke(
    s.url,
    flowId,
    "touch",
    { ...body, sessionId, input: { key: "m", title: "M" } },
    owner,
  );
  await finished(s.stores, done.requestId);
  await request(s.url)
    .patch(`${API}/sessions/${sessionId}/resources/notes/m/content`)
    .set(owner)
    .send({ content: "mine" })
    .expect(200);
  const held = await invoke(s.url, flowId, "hold", { ...body, sessionId }, owner);
  await running(s.stores, held.requestId);
  return { sessionId, doneRequestId: done.requestId, heldRequestId: held.requestId };
}

interface AddressedRoute {
  name: string;
  send: (f: Fixture, headers: Record<string, string>) => request.Test;
  /** The owner's status. */
  ok: number;
}

const sessionPath = (f: Fixture) => `${API}/sessions/${f.sessionId}`;
const items = (f: Fixture) => `${sessionPath(f)}/resources/notes`;

const ROUTES: AddressedRoute[] = [
  { name: "GET /sessions/:id", ok: 200, send: (f, h) => request(s.url).get(sessionPath(f)).set(h) },
  {
    name: "GET /sessions/:id/children",
    ok: 200,
    send: (f, h) =>
      request(s.url)
        .get(`${sessionPath(f)}/children`)
        .set(h),
  },
  {
    name: "GET /sessions/:id/state",
    ok: 200,
    send: (f, h) =>
      request(s.url)
        .get(`${sessionPath(f)}/state`)
        .set(h),
  },
  {
    name: "GET /sessions/:id/debug",
    ok: 200,
    send: (f, h) =>
      request(s.url)
        .get(`${sessionPath(f)}/debug`)
        .set(h),
  },
  {
    name: "GET /sessions/:id/resources/:ref/content",
    ok: 200,
    send: (f, h) =>
      request(s.url)
        .get(`${sessionPath(f)}/resources/readme/content`)
        .set(h),
  },
  { name: "GET /sessions/:id/resources/:ref", ok: 200, send: (f, h) => request(s.url).get(items(f)).set(h) },
  {
    name: "GET /sessions/:id/resources/:ref/:topic",
    ok: 200,
    send: (f, h) =>
      request(s.url)
        .get(`${items(f)}/m`)
        .set(h),
  },
  {
    name: "GET /sessions/:id/resources/:ref/:topic/content",
    ok: 200,
    send: (f, h) =>
      request(s.url)
        .get(`${items(f)}/m/content`)
        .set(h),
  },
  {
    name: "POST /sessions/:id/resources/:ref",
    ok: 201,
    send: (f, h) => request(s.url).post(items(f)).set(h).send({ topic: "new", content: "x" }),
  },
  {
    name: "PATCH /sessions/:id/resources/:ref/:topic/content",
    ok: 200,
    send: (f, h) =>
      request(s.url)
        .patch(`${items(f)}/m/content`)
        .set(h)
        .send({ content: "overwritten" }),
  },
  {
    name: "DELETE /sessions/:id/resources/:ref/:topic",
    ok: 200,
    send: (f, h) =>
      request(s.url)
        .delete(`${items(f)}/m`)
        .set(h),
  },
  {
    name: "GET /requests/:id",
    ok: 200,
    send: (f, h) => request(s.url).get(`${API}/requests/${f.doneRequestId}`).set(h),
  },
  {
    name: "GET /requests/:id/stream",
    ok: 200,
    send: (f, h) => request(s.url).get(`${API}/requests/${f.doneRequestId}/stream`).set(h),
  },
  {
    name: "POST /requests/:id/abort",
    ok: 202,
    send: (f, h) => request(s.url).post(`${API}/requests/${f.heldRequestId}/abort`).set(h),
  },
  {
    name: "POST /requests/:id/retry",
    ok: 202,
    send: (f, h) => request(s.url).post(`${API}/requests/${f.doneRequestId}/retry`).set(h),
  },
];

describe("auth matrix: a flow with a resolver (every addressed route × anonymous, other user, owner)", () => {
  const owner = as("ada", { "x-org": "acme", "x-tenant": "t1" });
  const cases: Array<[string, Record<string, string>, number, string | null]> = [
    ["anonymous", {}, 401, "unauthorized"],
    ["another user", as("eve", { "x-org": "acme", "x-tenant": "t1" }), 403, "forbidden"],
    // Specification, Session consistency: the session's org is bound for life, as on the action route.
    [
      "the owner's user in another org",
      as("ada", { "x-org": "other", "x-tenant": "t1" }),
      403,
      "org-binding-mismatch",
    ],
    // Naming no org contradicts nothing: a resolver may read the org from an action's body (specification,
    // Trust model), and these routes have none.
    ["the owner's user naming no org", as("ada", { "x-tenant": "t1" }), 0, null],
    ["the owner", owner, 0, null],
  ];

  describe.each(ROUTES)("$name", (route) => {
    it.each(cases)("%s", async (_who, headers, status, code) => {
      const f = await fixture("lab", owner, {});
      const before = await dumpStores(s.stores);
      const res = await route.send(f, headers);
      if (code === null) {
        expect(res.status).toBe(route.ok);
        return;
      }
      expectProblem(res, status, code);
      expect(res.text).not.toContain("mine");
      // A refusal wrote nothing and emitted no event (event logs are part of the dump).
      expect(await dumpStores(s.stores)).toEqual(before);
    });
  });

  it("the owner's manifest needs only the session to exist (specification: no further permission gate)", async () => {
    const f = await fixture("lab", owner, {});
    for (const headers of [{}, as("eve"), as("ada", { "x-org": "other", "x-tenant": "t1" }), owner]) {
      await request(s.url)
        .get(`${sessionPath(f)}/manifest`)
        .set(headers)
        .expect(200);
    }
  });

  it("a resolver refusal (PrincipalResolutionError) chooses the status on addressed routes too", async () => {
    const f = await fixture("lab", owner, {});
    expectProblem(
      await request(s.url).get(sessionPath(f)).set(as("expired")),
      401,
      "principal-resolution-failed",
    );
    expectProblem(
      await request(s.url).get(sessionPath(f)).set(as("banned")),
      403,
      "principal-resolution-failed",
    );
  });

  it("a session bound to a tenant refuses the same user from another tenant (403)", async () => {
    const f = await fixture("lab", owner, {});
    const otherTenant = as("ada", { "x-org": "acme", "x-tenant": "t2" });
    expectProblem(await request(s.url).get(sessionPath(f)).set(otherTenant), 403, "forbidden");
    expectProblem(
      await request(s.url)
        .get(`${items(f)}/m/content`)
        .set(otherTenant),
      403,
      "forbidden",
    );
  });
});

describe("auth matrix: a session bound to no org refuses its user calling with an org (every addressed route)", () => {
  const owner = as("ada");
  describe.each(ROUTES)("$name", (route) => {
    it("403 org-binding-mismatch, nothing written, nothing emitted; the owner without an org still gets through", async () => {
      const f = await fixture("lab", owner, {});
      const before = await dumpStores(s.stores);
      const res = await route.send(f, as("ada", { "x-org": "acme" }));
      expectProblem(res, 403, "org-binding-mismatch");
      expect(res.text).not.toContain("mine");
      expect(await dumpStores(s.stores)).toEqual(before);
      expect((await route.send(f, owner)).status).toBe(route.ok);
    });
  });

  it("the same action on the same session is refused with the same status and code", async () => {
    const f = await fixture("lab", owner, {});
    const res = await request(s.url)
      .post(`${API}/lab/actions/touch`)
      .set(as("ada", { "x-org": "acme" }))
      .send({ sessionId: f.sessionId, input: { key: "z", title: "Z" } });
    expectProblem(res, 403, "org-binding-mismatch");
  });
});

describe("an org-bound session's org data under the host resolver: the same user from another org reads and writes nothing", () => {
  const ledger = defineResourceCollection({
    pattern: "ledger/*",
    scope: "org",
    stateSchema: z.object({ amount: z.number().default(0) }),
    client: { content: { read: true, create: true, update: true, delete: true }, state: { read: true } },
  });
  const fund = handler({
    name: "fund",
    execute: async (_input, ctx) => {
      await ctx.org.patchState({ budget: 4242 });
      await ctx.resources.ledger.create("q1", { amount: 777 });
      return { ok: true };
    },
  });
  const orgbook = defineFlow({
    kind: "orgbook",
    org: { stateSchema: z.object({ budget: z.number().default(0) }), client: { expose: ["budget"] } },
    resources: { ledger },
    actions: { fund: { block: fund } },
  });

  it("/state, the org collection's list, item, content, create, patch and delete answer 403 org-binding-mismatch", async () => {
    const h = await serveLab({ flows: [orgbook], resolvePrincipal: headerResolver });
    try {
      const acme = as("ada", { "x-org": "acme" });
      const sessionId = await createSession(h.url, "orgbook", acme);
      const run = await invoke(h.url, "orgbook", "fund", { sessionId }, acme);
      await finished(h.stores, run.requestId);
      const base = `${API}/sessions/${sessionId}`;
      const owned = await request(h.url).get(`${base}/state`).set(acme).expect(200);
      expect(owned.text).toContain("4242");

      const rival = as("ada", { "x-org": "rival" });
      const before = await dumpStores(h.stores);
      const attempts = [
        request(h.url).get(`${base}/state`).set(rival),
        request(h.url).get(`${base}/resources/ledger`).set(rival),
        request(h.url).get(`${base}/resources/ledger/q1`).set(rival),
        request(h.url).get(`${base}/resources/ledger/q1/content`).set(rival),
        request(h.url).post(`${base}/resources/ledger`).set(rival).send({ topic: "q2", content: "x" }),
        request(h.url).patch(`${base}/resources/ledger/q1/content`).set(rival).send({ content: "x" }),
        request(h.url).delete(`${base}/resources/ledger/q1`).set(rival),
        request(h.url).get(`${API}/requests/${run.requestId}`).set(rival),
      ];
      for (const attempt of attempts) {
        const res = await attempt;
        expectProblem(res, 403, "org-binding-mismatch");
        // The refusal names the session (and may name the request): random ids can hold the digits by chance.
        const text = res.text.replaceAll(sessionId, "").replaceAll(run.requestId, "");
        expect(text).not.toContain("4242");
        expect(text).not.toContain("777");
      }
      expect(await dumpStores(h.stores)).toEqual(before);
    } finally {
      await h.close();
    }
  });
});

describe("auth matrix: a flow without any resolver stays open beside one with a resolver", () => {
  const owner = { "x-user": "ignored-here" };
  describe.each(ROUTES)("$name", (route) => {
    it.each([
      ["anonymous", {}],
      ["another user", as("eve")],
      ["the owner", owner],
    ])("%s gets the owner's answer", async (_who, headers) => {
      const f = await fixture("open", {}, { userId: "bob" });
      const res = await route.send(f, headers);
      expect(res.status).toBe(route.ok);
    });
  });
});

describe("the governing flow is the record's stored owner", () => {
  it("naming an open flow does not open a session of a flow with a resolver", async () => {
    const owner = as("ada");
    const f = await fixture("lab", owner, {});
    const before = await dumpStores(s.stores);
    // The action route names a flow: the stored owner is compared first (409, never an open run).
    const res = await request(s.url)
      .post(`${API}/open/actions/touch`)
      .send({ sessionId: f.sessionId, userId: "ada", input: { key: "z", title: "Z" } });
    expectProblem(res, 409, "wrong-instance-session");
    // A query naming another flow changes nothing on an addressed route.
    expectProblem(await request(s.url).get(`${sessionPath(f)}?flowId=open`), 401, "unauthorized");
    expect(await dumpStores(s.stores)).toEqual(before);
  });

  it("a request of an open flow stays open while a resolver flow's request is protected", async () => {
    const lab = await fixture("lab", as("ada"), {});
    const open = await fixture("open", {}, { userId: "bob" });
    await request(s.url).get(`${API}/requests/${open.doneRequestId}`).expect(200);
    expectProblem(await request(s.url).get(`${API}/requests/${lab.doneRequestId}`), 401, "unauthorized");
  });
});
