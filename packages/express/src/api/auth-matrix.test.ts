import request from "supertest";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { API, as, expectProblem } from "./testing/http.js";
import { releaseHeld } from "./testing/lab-flows.js";
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
    for (const headers of [{}, as("eve"), owner]) {
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
