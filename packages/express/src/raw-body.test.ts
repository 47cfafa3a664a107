import express from "express";
import request from "supertest";
import { afterEach, describe, expect, test } from "vitest";
import { captureRawBody } from "./raw-body.js";
import { notebook } from "./testing/fixture-flows.js";
import { type Served, serve } from "./testing/serve.js";
import { inbox, sign, signedProvider } from "./testing/webhook-flow.js";

let served: Served | undefined;
afterEach(async () => {
  await served?.close();
  served = undefined;
});

// Whitespace and key order a JSON re-serialisation would lose: only the exact bytes match the signature.
const DELIVERY = '{ "type": "ping",\n  "n": 7 }';

async function sessionCount(s: Served): Promise<number> {
  const sessions = await s.host.stores.sessions.list({ limit: 200 });
  return sessions.items.length;
}

/** Request records of any status: a dispatched delivery leaves one whether or not it creates a session. */
async function requestCount(s: Served): Promise<number> {
  const all = ["queued", "running", "completed", "failed", "aborted"] as const;
  return (await s.host.stores.requests.listByStatus([...all])).length;
}

function serveInbox(before?: (app: express.Express) => void) {
  return serve([inbox, notebook], {
    host: { webhookProviders: { signed: signedProvider } },
    ...(before ? { before } : {}),
  });
}

describe("raw body capture", () => {
  test("the router reads the exact bytes itself, so a signed delivery verifies without any body parser", async () => {
    served = await serveInbox();
    const res = await request(served.url)
      .post("/api/flows/inbox/webhooks/signed")
      .set("content-type", "application/json")
      .set("x-signature", sign(DELIVERY))
      .send(DELIVERY)
      .expect(202);
    expect(res.body).toEqual({ requestId: expect.any(String) });
    // The counterpart of the refusals below: an accepted delivery does leave a request record.
    expect(await requestCount(served)).toBe(1);
  });

  test("bytes of any content type reach the engine unchanged", async () => {
    served = await serveInbox();
    const res = await request(served.url)
      .post("/api/flows/inbox/webhooks/signed")
      .set("content-type", "application/x-www-form-urlencoded")
      .set("x-signature", sign(DELIVERY))
      .send(DELIVERY)
      .expect(202);
    expect(res.body.requestId).toEqual(expect.any(String));
  });

  test("a wrong signature is the engine's 401, and nothing is dispatched", async () => {
    served = await serveInbox();
    await request(served.url)
      .post("/api/flows/inbox/webhooks/signed")
      .set("content-type", "application/json")
      .set("x-signature", sign(`${DELIVERY} `))
      .send(DELIVERY)
      .expect(401);
    expect(await sessionCount(served)).toBe(0);
    expect(await requestCount(served)).toBe(0);
  });

  test("a global express.json({ verify: captureRawBody }) before the router keeps signatures working", async () => {
    let parsed: unknown;
    served = await serveInbox((app) => {
      app.use(express.json({ verify: captureRawBody }));
      app.use((req, _res, next) => {
        parsed = req.body;
        next();
      });
    });
    await request(served.url)
      .post("/api/flows/inbox/webhooks/signed")
      .set("content-type", "application/json")
      .set("x-signature", sign(DELIVERY))
      .send(DELIVERY)
      .expect(202);
    expect(parsed).toEqual({ type: "ping", n: 7 });
    // Action routes read the same kept bytes.
    await request(served.url).post("/api/flows/notebook/sessions").send({ userId: "u1" }).expect(201);
  });

  test("a global express.json() without the hook: 400 invalid-request naming the fix, and nothing is written", async () => {
    served = await serveInbox((app) => {
      app.use(express.json());
    });
    const res = await request(served.url)
      .post("/api/flows/inbox/webhooks/signed")
      .set("content-type", "application/json")
      .set("x-signature", sign(DELIVERY))
      .send(DELIVERY)
      .expect(400);
    expect(res.headers["content-type"]).toMatch(/^application\/problem\+json/);
    expect(res.body).toMatchObject({ status: 400, code: "invalid-request" });
    expect(res.body.detail).toContain("express.json({ verify: captureRawBody })");
    await request(served.url).post("/api/flows/notebook/sessions").send({ userId: "u1" }).expect(400);
    expect(await sessionCount(served)).toBe(0);
    expect(await requestCount(served)).toBe(0);
    // Bodies the parser did not touch (other content types, body-less requests) still work.
    await request(served.url).get("/api/flows").expect(200);
    await request(served.url)
      .post("/api/flows/notebook/sessions")
      .set("content-type", "text/plain")
      .send('{"userId":"u2"}')
      .expect(201);
  });
});
