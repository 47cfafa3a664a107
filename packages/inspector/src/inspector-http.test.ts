import { PrincipalResolutionError } from "@flowrt/core";
import { afterEach, describe, expect, test } from "vitest";
import {
  deliverWebhook,
  type InspectorServer,
  openGate,
  runAction,
  settle,
  startInspectorServer,
} from "./testing/inspector-fixture.js";

// Every test goes through real HTTP: Express on a 127.0.0.1 socket, the inspector mounted as an inbound adapter.
let server: InspectorServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const get = (url: string, headers: Record<string, string> = {}) => fetch(url, { headers });

/** A resolver that knows two bearer tokens; anything else is refused (401). */
const resolvePrincipal = async (context: { request?: { headers: Record<string, unknown> } }) => {
  const token = String(context.request?.headers.authorization ?? "");
  if (token === "Bearer ada-token") return { userId: "ada" };
  if (token === "Bearer bob-token") return { userId: "bob" };
  throw new PrincipalResolutionError("unknown token", { status: 401 });
};

describe("inspector routes", () => {
  test("with the host's inspector off, the page and every JSON route are unknown routes (404)", async () => {
    server = await startInspectorServer({ inspector: false });
    const { requestId, sessionId } = await runAction(server, "addNote", {
      input: { key: "a", title: "secret-title" },
      userId: "ada",
    });
    await settle(server, requestId);
    const unknown = await get(`${server.url}${server.host.basePath}/_nothing-here`);
    expect(unknown.status).toBe(404);
    const unknownCode = ((await unknown.json()) as { code: string }).code;
    for (const path of [
      "",
      "/inspector.js",
      "/api/flows",
      "/api/sessions",
      `/api/sessions/${sessionId}`,
      `/api/requests/${requestId}`,
      "/api/requests?status=failed",
    ]) {
      const response = await get(`${server.inspector}${path}`);
      expect(response.status, path).toBe(404);
      // Answered as an unknown route is (the engine's 404 problem), with nothing of the session in it.
      const text = await response.text();
      expect((JSON.parse(text) as { code: string }).code, path).toBe(unknownCode);
      expect(text, path).not.toContain("secret-title");
      expect(text, path).not.toContain("addNote");
      expect(text, path).not.toContain("flowrt inspector");
    }
  });

  test("lists a session, its requests, their events, and a failure with the block that failed", async () => {
    server = await startInspectorServer({ inspector: true });
    const note = await runAction(server, "addNote", {
      input: { key: "first", title: "Hello" },
      userId: "ada",
    });
    await settle(server, note.requestId);
    const failing = await runAction(server, "checkout", { sessionId: note.sessionId, userId: "ada" });
    await settle(server, failing.requestId);
    const other = await runAction(server, "addNote", { input: { key: "b", title: "B" }, userId: "bob" });
    await settle(server, other.requestId);

    const page = await get(server.inspector);
    expect(page.status).toBe(200);
    expect(page.headers.get("content-type")).toContain("text/html");
    const html = await page.text();
    expect(html).toContain(`content="${server.host.basePath}/_inspector"`);
    expect(html).toContain(`src="${server.host.basePath}/_inspector/inspector.js"`);
    expect(html).not.toContain("__FLOWRT_");
    const script = await get(`${server.inspector}/inspector.js`);
    expect(script.headers.get("content-type")).toContain("text/javascript");

    const flows = (await (await get(`${server.inspector}/api/flows`)).json()) as {
      flows: Array<{ id: string; actions: Array<{ name: string; block: string }> }>;
    };
    expect(flows.flows.map((f) => f.id)).toEqual(["notebook"]);
    expect(flows.flows[0]!.actions.map((a) => `${a.name}:${a.block}`)).toEqual([
      "addNote:addNote",
      "checkout:checkout",
      "slow:slowStep",
    ]);

    // No resolver: every user's sessions, filtered by user and by flow.
    const all = (await (await get(`${server.inspector}/api/sessions`)).json()) as {
      sessions: Array<{ id: string; userId: string }>;
    };
    expect(all.sessions.map((s) => s.userId).sort()).toEqual(["ada", "bob"]);
    const ada = (await (await get(`${server.inspector}/api/sessions?userId=ada&flowId=notebook`)).json()) as {
      sessions: Array<{ id: string }>;
    };
    expect(ada.sessions.map((s) => s.id)).toEqual([note.sessionId]);
    const none = (await (await get(`${server.inspector}/api/sessions?flowId=other`)).json()) as {
      sessions: unknown[];
    };
    expect(none.sessions).toEqual([]);

    const session = (await (await get(`${server.inspector}/api/sessions/${note.sessionId}`)).json()) as {
      resources: { notes: Array<{ path: string; state: { title: string }; content: string | null }> };
      requests: Array<{ id: string; status: string; failedBlock?: { block: string } | null }>;
    };
    expect(session.resources.notes).toEqual([
      { path: "notes/first", state: { title: "Hello" }, content: "# Hello" },
    ]);
    expect(session.requests.map((r) => [r.id, r.status])).toEqual([
      [failing.requestId, "failed"],
      [note.requestId, "completed"],
    ]);

    const detail = (await (await get(`${server.inspector}/api/requests/${failing.requestId}`)).json()) as {
      request: { status: string; error: { code: string; message: string }; failedBlock: unknown };
      events: Array<{ type: string; data: { block?: string } }>;
    };
    expect(detail.request.status).toBe("failed");
    expect(detail.request.error).toMatchObject({
      code: "operation-not-permitted",
      message: "The card was declined.",
    });
    expect(detail.request.failedBlock).toEqual({ block: "chargeCard", kind: "handler", path: ["checkout"] });
    expect(detail.events.map((e) => `${e.type}${e.data.block ? `:${e.data.block}` : ""}`)).toEqual([
      "request.started",
      "block.started:checkout",
      "block.started:reserve",
      "block.completed:reserve",
      "block.started:chargeCard",
      "request.failed",
    ]);

    const failures = (await (await get(`${server.inspector}/api/requests?status=failed`)).json()) as {
      requests: Array<{ id: string; failedBlock: { block: string } }>;
    };
    expect(failures.requests.map((r) => [r.id, r.failedBlock.block])).toEqual([
      [failing.requestId, "chargeCard"],
    ]);
    const deliveries = (await (await get(`${server.inspector}/api/requests?origin=webhook`)).json()) as {
      requests: unknown[];
    };
    expect(deliveries.requests).toEqual([]);
  });

  test("webhook deliveries are listed with their delivery id and outcome, a refused redelivery as failed", async () => {
    server = await startInspectorServer({ inspector: true });
    const first = await deliverWebhook(server, "evt_1", "From a webhook");
    await settle(server, first);
    const again = await deliverWebhook(server, "evt_1", "From a webhook");
    await settle(server, again);
    const note = await runAction(server, "addNote", { input: { key: "a", title: "A" }, userId: "ada" });
    await settle(server, note.requestId);

    const { requests } = (await (await get(`${server.inspector}/api/requests?origin=webhook`)).json()) as {
      requests: Array<{
        id: string;
        deliveryId: string;
        action: string;
        status: string;
        error?: { code: string };
      }>;
    };
    expect(requests.map((r) => [r.id, r.deliveryId, r.action, r.status, r.error?.code])).toEqual([
      [again, "evt_1", "webhook:demo:note.created", "failed", "topic-exists"],
      [first, "evt_1", "webhook:demo:note.created", "completed", undefined],
    ]);
  });

  test("without a resolver only a loopback client is served: another address gets 403 and no data", async () => {
    server = await startInspectorServer({ inspector: true });
    const { requestId, sessionId } = await runAction(server, "addNote", {
      input: { key: "a", title: "A" },
      userId: "ada",
    });
    await settle(server, requestId);
    // The same server, with Express told to trust a proxy's X-Forwarded-For: req.ip is then the forwarded client.
    const { default: express } = await import("express");
    const { createFlowRouter } = await import("@flowrt/express");
    const app = express();
    app.set("trust proxy", "loopback");
    app.use(createFlowRouter(server.host));
    const proxied = app.listen(0, "127.0.0.1");
    await new Promise<void>((resolve) => proxied.once("listening", resolve));
    try {
      const port = (proxied.address() as { port: number }).port;
      const root = `http://127.0.0.1:${port}${server.host.basePath}/_inspector`;
      for (const path of [
        "",
        "/api/flows",
        "/api/sessions",
        `/api/sessions/${sessionId}`,
        `/api/requests/${requestId}`,
      ]) {
        const refused = await get(`${root}${path}`, { "x-forwarded-for": "203.0.113.7" });
        expect(refused.status, path).toBe(403);
        expect(refused.headers.get("content-type")).toContain("application/problem+json");
        const body = await refused.text();
        expect(JSON.parse(body)).toMatchObject({ code: "forbidden" });
        expect(body).not.toContain(sessionId);
        expect(body).not.toContain("notebook");
      }
      const local = await get(`${root}/api/sessions`, { "x-forwarded-for": "127.0.0.1" });
      expect(local.status).toBe(200);
    } finally {
      proxied.closeAllConnections();
      await new Promise<void>((resolve) => proxied.close(() => resolve()));
    }
  });

  test("with a resolver: an unknown caller gets 401, another user 403 on a session, and neither sees data", async () => {
    server = await startInspectorServer({ inspector: true, resolvePrincipal });
    const ada = { authorization: "Bearer ada-token" };
    const { requestId, sessionId } = await runAction(server, "checkout", {}, ada);
    await settle(server, requestId);

    for (const path of [
      "/api/flows",
      "/api/sessions",
      `/api/sessions/${sessionId}`,
      `/api/requests/${requestId}`,
    ]) {
      for (const headers of [{}, { authorization: "Bearer forged" }] as Array<Record<string, string>>) {
        const refused = await get(`${server.inspector}${path}`, headers);
        expect(refused.status, path).toBe(401);
        const body = await refused.text();
        expect(body).not.toContain(sessionId);
        expect(body).not.toContain("chargeCard");
      }
    }
    const bob = { authorization: "Bearer bob-token" };
    for (const path of [`/api/sessions/${sessionId}`, `/api/requests/${requestId}`]) {
      const refused = await get(`${server.inspector}${path}`, bob);
      expect(refused.status, path).toBe(403);
      expect(await refused.text()).not.toContain("chargeCard");
    }
    const bobs = (await (await get(`${server.inspector}/api/sessions`, bob)).json()) as {
      sessions: unknown[];
    };
    expect(bobs.sessions).toEqual([]);
    const bobFailures = (await (await get(`${server.inspector}/api/requests?status=failed`, bob)).json()) as {
      requests: unknown[];
    };
    expect(bobFailures.requests).toEqual([]);

    const own = (await (await get(`${server.inspector}/api/sessions`, ada)).json()) as {
      sessions: Array<{ id: string }>;
    };
    expect(own.sessions.map((s) => s.id)).toEqual([sessionId]);
    const detail = await get(`${server.inspector}/api/requests/${requestId}`, ada);
    expect(detail.status).toBe(200);
    expect(
      ((await detail.json()) as { request: { failedBlock: { block: string } } }).request.failedBlock.block,
    ).toBe("chargeCard");
  });

  test("a running request's events are readable while it runs", async () => {
    const gate = openGate();
    server = await startInspectorServer({ inspector: true, gate: gate.opened });
    const { requestId } = await runAction(server, "slow", { userId: "ada" });
    await expect
      .poll(async () => {
        const detail = (await (await get(`${server!.inspector}/api/requests/${requestId}`)).json()) as {
          events: Array<{ type: string }>;
        };
        return detail.events.map((e) => e.type);
      })
      .toContain("progress");
    gate.open();
    await settle(server, requestId);
  });
});
