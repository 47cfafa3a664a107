import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SseParser } from "@flowrt/client";
import request from "supertest";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { type ReferenceServer, startReferenceServer } from "./app.js";
import { signDevToken } from "./auth/dev-tokens.js";
import { sendDelivery, signedSample } from "./webhooks/sample-deliveries.js";

// The sign-in route, the org board, the webhook deliveries, the board feed and the MCP endpoint, all through
// real HTTP on a socket.
const dataDir = mkdtempSync(join(tmpdir(), "flowrt-reference-board-"));
let server: ReferenceServer;
let api: string;
const bearer = new Map<string, string>();
const as = (user: string) => ({ authorization: `Bearer ${bearer.get(user)}` });

beforeAll(async () => {
  server = await startReferenceServer({ port: 0, dataDir });
  api = `${server.url}/api/flows`;
  for (const [user, org] of [
    ["ada", "acme"],
    ["bob", "acme"],
    ["carol", "globex"],
  ] as const) {
    bearer.set(user, await signDevToken({ userId: user, orgId: org }));
  }
});

afterAll(async () => {
  await server?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

async function finished(requestId: string, user = "ada") {
  for (;;) {
    const { body } = await request(api).get(`/requests/${requestId}`).set(as(user)).expect(200);
    if (["completed", "failed", "aborted"].includes(body.request.status)) return body.request;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
const newSession = async (user: string) =>
  (await request(api).post("/notebook/sessions").set(as(user)).send({}).expect(201)).body.session
    .id as string;
const boardTitles = async (user: string, sessionId: string) => {
  const { body } = await request(api).get(`/sessions/${sessionId}/resources/board`).set(as(user)).expect(200);
  return (body.items as { clientData: { title: string } }[]).map((item) => item.clientData.title).sort();
};

describe("development sign-in", () => {
  test("issues an HS256 token that the resolver accepts, naming the user and the org", async () => {
    const { body } = await request(server.url)
      .post("/auth/token")
      .send({ userId: "dora", orgId: "acme" })
      .expect(200);
    expect(body).toMatchObject({ userId: "dora", orgId: "acme" });
    expect(JSON.parse(Buffer.from(body.token.split(".")[0], "base64url").toString())).toEqual({
      alg: "HS256",
    });
    const created = await request(api)
      .post("/notebook/sessions")
      .set({ authorization: `Bearer ${body.token}` })
      .send({})
      .expect(201);
    expect(created.body.session).toMatchObject({ userId: "dora", orgId: "acme" });
  });

  test("bad sign-in input is a problem+json 400 with a code, and no token", async () => {
    const refused = await request(server.url).post("/auth/token").send({ userId: "no spaces" }).expect(400);
    expect(refused.headers["content-type"]).toMatch(/^application\/problem\+json/);
    expect(refused.body).toMatchObject({ status: 400, code: "invalid-sign-in" });
    expect(refused.body.token).toBeUndefined();
  });
});

describe("the org board", () => {
  test("a post is seen by every member of the org and by no one outside it", async () => {
    const adaSession = await newSession("ada");
    const posted = await request(api)
      .post("/notebook/actions/postToBoard")
      .set(as("ada"))
      .send({ sessionId: adaSession, input: { title: "Standup at ten" } })
      .expect(202);
    expect(await finished(posted.body.requestId)).toMatchObject({ status: "completed" });
    expect(await boardTitles("bob", await newSession("bob"))).toContain("Standup at ten");
    expect(await boardTitles("carol", await newSession("carol"))).toEqual([]);
  });

  test("the board feed relays another member's post live; without a token it is 401", async () => {
    const refused = await fetch(`${api}/board-feed`);
    expect(refused.status).toBe(401);
    expect(((await refused.json()) as { code: string }).code).toBe("unauthenticated");

    const controller = new AbortController();
    const feed = await fetch(`${api}/board-feed`, { headers: as("bob"), signal: controller.signal });
    expect(feed.headers.get("content-type")).toMatch(/^text\/event-stream/);
    const reader = feed.body!.pipeThrough(new TextDecoderStream()).getReader();
    const parser = new SseParser();
    const sessionId = await newSession("ada");
    await request(api)
      .post("/notebook/actions/postToBoard")
      .set(as("ada"))
      .send({ sessionId, input: { title: "Lunch on Friday" } })
      .expect(202);
    let relayed:
      | { type: string; ref: string; change: string; clientData: { title: string; by: string } }
      | undefined;
    while (relayed === undefined) {
      const { value } = await reader.read();
      const message = parser.push(value ?? "").at(0);
      if (message) relayed = JSON.parse(message.data);
    }
    controller.abort();
    expect(relayed).toMatchObject({
      type: "resource_change",
      ref: "board",
      change: "created",
      clientData: { title: "Lunch on Friday", by: "ada" },
    });
  });
});

test("the board feed relays only the caller's org: another org's member gets their own org's posts alone", async () => {
  const controller = new AbortController();
  const feed = await fetch(`${api}/board-feed`, { headers: as("carol"), signal: controller.signal });
  const reader = feed.body!.pipeThrough(new TextDecoderStream()).getReader();
  const parser = new SseParser();
  const post = async (user: string, title: string) => {
    const sessionId = await newSession(user);
    const { body } = await request(api)
      .post("/notebook/actions/postToBoard")
      .set(as(user))
      .send({ sessionId, input: { title } })
      .expect(202);
    await finished(body.requestId, user);
  };
  // acme's post first, then globex's: the first thing carol's feed carries is globex's.
  await post("ada", "Acme only");
  await post("carol", "Globex only");
  let first: { clientData: { title: string } } | undefined;
  while (first === undefined) {
    const { value } = await reader.read();
    const message = parser.push(value ?? "").at(0);
    if (message) first = JSON.parse(message.data);
  }
  controller.abort();
  expect(first?.clientData.title).toBe("Globex only");
});

describe("webhook deliveries", () => {
  test("a signed Stripe-style and GitHub-style delivery each post to the webhook org's board", async () => {
    for (const event of ["invoice.paid", "issues"] as const) {
      const { status, body } = await sendDelivery(server.url, signedSample(event));
      expect(status).toBe(202);
      const done = await server.host.stores.requests.get(JSON.parse(body).requestId);
      expect(done?.userId).toBe("webhooks");
    }
    const titles = await (async () => {
      const sessionId = await newSession("bob");
      for (;;) {
        const seen = await boardTitles("bob", sessionId);
        if (seen.some((t) => t.includes("Invoice")) && seen.some((t) => t.includes("opened"))) return seen;
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    })();
    expect(titles.find((t) => t.startsWith("Invoice in_"))).toMatch(/^Invoice in_\w+ paid: 42\.00 eur$/);
    expect(titles.find((t) => t.startsWith("acme/notebook#7 opened: Sample issue"))).toBeDefined();
  });

  test("a delivery signed with the wrong secret is 401 and writes nothing", async () => {
    const sessionId = await newSession("bob");
    const before = await boardTitles("bob", sessionId);
    const requestsBefore = await server.host.stores.requests.listByStatus([
      "queued",
      "running",
      "completed",
      "failed",
    ]);
    const forged = signedSample("invoice.paid", { stripe: "whsec_wrong", github: "wrong" });
    expect((await sendDelivery(server.url, forged)).status).toBe(401);
    const forgedGitHub = signedSample("issues", { stripe: "whsec_wrong", github: "wrong" });
    expect((await sendDelivery(server.url, forgedGitHub)).status).toBe(401);
    expect(await boardTitles("bob", sessionId)).toEqual(before);
    expect(
      await server.host.stores.requests.listByStatus(["queued", "running", "completed", "failed"]),
    ).toEqual(requestsBefore);
  });
});

describe("MCP", () => {
  test("the app's actions are tools at /api/flows/mcp for a signed-in caller", async () => {
    const headers = {
      ...as("ada"),
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
    };
    const rpc = async (body: object, session?: string) => {
      const response = await fetch(`${api}/mcp`, {
        method: "POST",
        headers: session ? { ...headers, "mcp-session-id": session } : headers,
        body: JSON.stringify({ jsonrpc: "2.0", ...body }),
      });
      const text = await response.text();
      const data = text.startsWith("{") ? text : (new SseParser().push(`${text}\n\n`).at(0)?.data ?? "null");
      return { response, message: JSON.parse(data) };
    };
    const init = await rpc({
      id: 1,
      method: "initialize",
      params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "test", version: "1" } },
    });
    expect(init.response.status).toBe(200);
    const session = init.response.headers.get("mcp-session-id") ?? undefined;
    await fetch(`${api}/mcp`, {
      method: "POST",
      headers: session ? { ...headers, "mcp-session-id": session } : headers,
      body: JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }),
    });
    const listed = await rpc({ id: 2, method: "tools/list", params: {} }, session);
    const names = (listed.message.result.tools as { name: string }[]).map((tool) => tool.name);
    expect(names).toEqual(
      expect.arrayContaining(["notebook.addNote", "notebook.postToBoard", "notebook.ask"]),
    );
  });
});
