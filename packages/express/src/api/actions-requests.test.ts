import { defineFlow, handler } from "@flowrt/core";
import request from "supertest";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { sign } from "../testing/webhook-flow.js";
import { API, as, expectNoStack, expectProblem } from "./testing/http.js";
import { releaseHeld, resolverCalls } from "./testing/lab-flows.js";
import { createSession, finished, invoke, type Lab, running, serveLab } from "./testing/lab-server.js";
import { dumpStores } from "./testing/store-hooks.js";

let s: Lab;
beforeAll(async () => {
  s = await serveLab();
});
afterEach(() => releaseHeld());
afterAll(() => s.close());

const action = (flowId: string, name: string) => request(s.url).post(`${API}/${flowId}/actions/${name}`);

describe("POST /:flowId/actions/:action", () => {
  it("202 { requestId, sessionId }; without sessionId a session is created for the principal", async () => {
    const res = await action("lab", "touch")
      .set(as("ada"))
      .send({ input: { key: "k", title: "T" } })
      .expect(202);
    expect(res.body).toEqual({ requestId: expect.any(String), sessionId: expect.any(String) });
    expect(await s.stores.sessions.get(res.body.sessionId)).toMatchObject({ userId: "ada", flowId: "lab" });
    expect(await finished(s.stores, res.body.requestId)).toMatchObject({
      status: "completed",
      output: { count: 1 },
    });
  });

  it("with sessionId the action runs in that session", async () => {
    const sessionId = await createSession(s.url, "lab", as("ada"));
    const res = await action("lab", "touch")
      .set(as("ada"))
      .send({ sessionId, input: { key: "k", title: "T" } })
      .expect(202);
    expect(res.body.sessionId).toBe(sessionId);
  });

  it("an input its block's inputSchema refuses is 400 invalid-input naming the field; no session, request or event", async () => {
    const sessionId = await createSession(s.url, "lab", as("ada"));
    const before = await dumpStores(s.stores);
    for (const body of [{ input: { key: "k" } }, { sessionId, input: { key: "k", title: 5 } }]) {
      const res = await action("lab", "touch").set(as("ada")).send(body);
      expectProblem(res, 400, "invalid-input");
      expect(res.body.field).toBe("title");
      expect(res.body.detail).toMatch(/at field "title"/);
    }
    // Also when the caller asks for the stream inline: the refusal comes before any stream opens.
    const inline = await action("lab", "touch")
      .set({ ...as("ada"), accept: "text/event-stream" })
      .send({ sessionId, input: {} });
    expectProblem(inline, 400, "invalid-input");
    expect(await dumpStores(s.stores)).toEqual(before);
    // A valid input after them runs as usual, its schema's output handed to the block.
    const ok = await action("lab", "touch")
      .set(as("ada"))
      .send({ sessionId, input: { key: "k", title: "T" } });
    expect(ok.status).toBe(202);
    expect(await finished(s.stores, ok.body.requestId)).toMatchObject({ status: "completed" });
  });

  it("404 for an unknown flow or action; 401 without a credential; nothing written", async () => {
    const before = await dumpStores(s.stores);
    expectProblem(await action("nope", "touch").set(as("ada")).send({}), 404, "flow-not-found");
    expectProblem(await action("lab", "nope").set(as("ada")).send({}), 404, "action-not-found");
    expectProblem(
      await action("lab", "touch").send({ input: { key: "k", title: "T" } }),
      401,
      "unauthorized",
    );
    expectProblem(await action("lab", "touch").set(as("ada")).send([1]), 400, "invalid-request");
    expect(await dumpStores(s.stores)).toEqual(before);
  });

  it("a session is bound to one user and one org: 403 user-binding-mismatch / org-binding-mismatch, nothing written", async () => {
    const sessionId = await createSession(s.url, "lab", as("ada", { "x-org": "acme" }));
    const before = await dumpStores(s.stores);
    const body = { sessionId, input: { key: "k", title: "T" } };
    expectProblem(
      await action("lab", "touch")
        .set(as("eve", { "x-org": "acme" }))
        .send(body),
      403,
      "user-binding-mismatch",
    );
    expectProblem(
      await action("lab", "touch")
        .set(as("ada", { "x-org": "other" }))
        .send(body),
      403,
      "org-binding-mismatch",
    );
    const openSession = await createSession(s.url, "open", {}, { userId: "bob" });
    expectProblem(
      await action("open", "touch").send({
        sessionId: openSession,
        userId: "eve",
        input: { key: "k", title: "T" },
      }),
      403,
      "user-binding-mismatch",
    );
    const after = await dumpStores(s.stores);
    expect((after.sessions as unknown[]).length).toBe((before.sessions as unknown[]).length + 1);
    expect(after.requests).toEqual(before.requests);
  });

  it("without any resolver an action on an existing session still needs a userId: 401 as without a sessionId, nothing written", async () => {
    const openSession = await createSession(s.url, "open", {}, { userId: "bob" });
    const before = await dumpStores(s.stores);
    const input = { key: "k", title: "T" };
    expectProblem(await action("open", "touch").send({ input }), 401, "unauthorized");
    expectProblem(await action("open", "touch").send({ sessionId: openSession, input }), 401, "unauthorized");
    expectProblem(
      await action("open", "touch")
        .set("accept", "text/event-stream")
        .send({ sessionId: openSession, input }),
      401,
      "unauthorized",
    );
    // No session, no request record, no event.
    expect(await dumpStores(s.stores)).toEqual(before);
    // Naming the owner runs the action in the session.
    const ok = await invoke(s.url, "open", "touch", { sessionId: openSession, userId: "bob", input });
    expect(ok.sessionId).toBe(openSession);
    expect(await finished(s.stores, ok.requestId)).toMatchObject({ status: "completed", userId: "bob" });
  });

  it("with requireUser: false and a defaultUserId an action on an existing session runs as that user (unchanged)", async () => {
    const ping = handler({ name: "ping", execute: async (_input, ctx) => ({ user: ctx.principal.userId }) });
    const devFlow = defineFlow({
      kind: "dev",
      authentication: { requireUser: false, defaultUserId: "dev" },
      actions: { ping: { block: ping } },
    });
    const h = await serveLab({ flows: [devFlow] });
    try {
      const sessionId = await createSession(h.url, "dev");
      expect((await h.stores.sessions.get(sessionId))?.userId).toBe("dev");
      const run = await invoke(h.url, "dev", "ping", { sessionId, input: {} });
      expect(run.sessionId).toBe(sessionId);
      expect(await finished(h.stores, run.requestId)).toMatchObject({
        status: "completed",
        userId: "dev",
        output: { user: "dev" },
      });
    } finally {
      await h.close();
    }
  });

  it("409 wrong-instance-session when the address is another instance than the stored owner, before any resolver", async () => {
    const sessionId = await createSession(s.url, "multi-a", as("ada"));
    const before = await dumpStores(s.stores);
    resolverCalls.count = 0;
    const anonymous = await action("multi-b", "touch").send({ sessionId, input: { key: "k", title: "T" } });
    expect(expectProblem(anonymous, 409, "wrong-instance-session").sessionId).toBe(sessionId);
    expect(resolverCalls.count).toBe(0);
    expectProblem(
      await action("multi-b", "touch").set(as("ada")).send({ sessionId, input: {} }),
      409,
      "wrong-instance-session",
    );
    expect(await dumpStores(s.stores)).toEqual(before);
  });

  it("409 migration-required for a session without a recorded owner when its kind has several instances", async () => {
    await s.stores.sessions.create({
      id: "legacy-multi",
      flowId: null,
      flowKind: "multi",
      userId: "ada",
      rootSessionId: "legacy-multi",
      metadata: {},
      createdAt: new Date().toISOString(),
    });
    resolverCalls.count = 0;
    const res = await action("multi-a", "touch")
      .set(as("ada"))
      .send({ sessionId: "legacy-multi", input: {} });
    expectProblem(res, 409, "migration-required");
    expect(resolverCalls.count).toBe(0);
  });

  it("a session without a recorded owner belongs to the only instance of its kind", async () => {
    await s.stores.sessions.create({
      id: "legacy-solo",
      flowId: null,
      flowKind: "solo",
      userId: "ada",
      rootSessionId: "legacy-solo",
      metadata: {},
      createdAt: new Date().toISOString(),
    });
    const ok = await invoke(
      s.url,
      "solo-1",
      "touch",
      { sessionId: "legacy-solo", input: { key: "k", title: "T" } },
      as("ada"),
    );
    expect(await finished(s.stores, ok.requestId)).toMatchObject({ status: "completed" });
  });
});

describe("requests: status, abort, retry", () => {
  it("GET /requests/:id returns the architecture's record view, with the userId the specification's request record carries; a failure carries no stack", async () => {
    const done = await invoke(s.url, "lab", "touch", { input: { key: "k", title: "T" } }, as("ada"));
    await finished(s.stores, done.requestId);
    const res = await request(s.url).get(`${API}/requests/${done.requestId}`).set(as("ada")).expect(200);
    expect(res.body).toEqual({
      request: {
        id: done.requestId,
        sessionId: done.sessionId,
        flowId: "lab",
        action: "touch",
        status: "completed",
        userId: "ada",
        output: { count: 1 },
        createdAt: expect.any(String),
        completedAt: expect.any(String),
        metadata: { origin: "action" },
      },
    });
    const failed = await invoke(s.url, "lab", "fail", {}, as("ada"));
    await finished(s.stores, failed.requestId);
    const failure = await request(s.url)
      .get(`${API}/requests/${failed.requestId}`)
      .set(as("ada"))
      .expect(200);
    expect(failure.body.request).toMatchObject({
      status: "failed",
      // Issue 22: an application's Error reaches the client as the catalogue's text and an errorId.
      error: {
        code: "internal-error",
        message: "An unexpected error occurred.",
        errorId: expect.any(String),
      },
    });
    expect(JSON.stringify(failure.body)).not.toContain("boom");
    expectNoStack(failure);
    expectProblem(await request(s.url).get(`${API}/requests/nope`).set(as("ada")), 404, "request-not-found");
  });

  it("POST /requests/:id/abort: 202 { status }, then 409 request-finished", async () => {
    const held = await invoke(s.url, "lab", "hold", {}, as("ada"));
    await running(s.stores, held.requestId);
    await request(s.url)
      .post(`${API}/requests/${held.requestId}/abort`)
      .set(as("ada"))
      .expect(202, { status: "aborted" });
    expect(await finished(s.stores, held.requestId)).toMatchObject({ status: "aborted" });
    const again = await request(s.url).post(`${API}/requests/${held.requestId}/abort`).set(as("ada"));
    expectProblem(again, 409, "request-finished");
  });

  it("POST /requests/:id/retry: 202 a new request with the same input; 409 not-retryable while running", async () => {
    const held = await invoke(s.url, "lab", "hold", {}, as("ada"));
    await running(s.stores, held.requestId);
    expectProblem(
      await request(s.url).post(`${API}/requests/${held.requestId}/retry`).set(as("ada")),
      409,
      "not-retryable",
    );
    releaseHeld();
    await finished(s.stores, held.requestId);

    const first = await invoke(s.url, "lab", "touch", { input: { key: "r1", title: "R" } }, as("ada"));
    await finished(s.stores, first.requestId);
    const retry = await request(s.url)
      .post(`${API}/requests/${first.requestId}/retry`)
      .set(as("ada"))
      .expect(202);
    expect(retry.body).toEqual({ requestId: expect.any(String), sessionId: first.sessionId });
    expect(retry.body.requestId).not.toBe(first.requestId);
    const record = await finished(s.stores, retry.body.requestId);
    expect(record).toMatchObject({
      input: { key: "r1", title: "R" },
      metadata: { origin: "retry", retryOf: first.requestId },
    });
  });
});

describe("POST /:flowKind/webhooks/:provider", () => {
  const deliver = (payload: object, signature?: string) => {
    const body = JSON.stringify(payload);
    return request(s.url)
      .post(`${API}/inbox/webhooks/signed`)
      .set("content-type", "application/json")
      .set("x-signature", signature ?? sign(body))
      .send(body);
  };

  it("202 { requestId } after dispatch; the request is webhook-originated and refuses retry with 409 not-retryable", async () => {
    const res = await deliver({ type: "ping", n: 3 }).expect(202);
    expect(res.body).toEqual({ requestId: expect.any(String) });
    expect(await finished(s.stores, res.body.requestId)).toMatchObject({
      status: "completed",
      output: { seen: 3 },
    });
    expectProblem(
      await request(s.url).post(`${API}/requests/${res.body.requestId}/retry`),
      409,
      "not-retryable",
    );
  });

  it("202 for an ignored event; 200 with the acknowledge body for a handshake; 401 for a bad signature", async () => {
    const before = await dumpStores(s.stores);
    expect((await deliver({ type: "other", n: 1 }).expect(202)).body).toMatchObject({ ignored: true });
    await deliver({ type: "url_verification", challenge: "c-1" }).expect(200, { challenge: "c-1" });
    expectProblem(await deliver({ type: "ping", n: 1 }, "sha256=00"), 401, "webhook-verification-failed");
    expect(await dumpStores(s.stores)).toEqual(before);
  });

  it("404 for a provider the flow does not receive", async () => {
    expectProblem(await request(s.url).post(`${API}/inbox/webhooks/nope`).send("{}"), 404, "not-found");
  });
});
