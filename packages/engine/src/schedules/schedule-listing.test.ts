/** `GET /schedules` over a real socket: who sees which schedule, and what the OpenAPI document says of it. */
import { defineFlow, type FlowStores, type PrincipalResolutionContext } from "@flowrt/core";
import { createMemoryStores } from "@flowrt/store-memory";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createFlowHost, type FlowHost } from "../host.js";
import { createHttpHandler } from "../http/handler.js";
import { silentLogger } from "../logger.js";
import { serveOverSocket } from "../webhooks/testing/webhook-harness.js";
import { tickBlock } from "./testing/clock-flow.js";

/** The caller is the `x-user` header (and `x-org`), as an application's resolver would read a token. */
const header = (context: PrincipalResolutionContext, name: string) => {
  const value = context.request?.headers[name];
  return typeof value === "string" ? value : undefined;
};
const resolvePrincipal = (context: PrincipalResolutionContext) => ({
  userId: header(context, "x-user"),
  orgId: header(context, "x-org"),
});

const reports = defineFlow({
  kind: "reports",
  schedules: {
    adaDaily: {
      cron: "0 6 * * *",
      timezone: "Europe/Berlin",
      block: tickBlock,
      principal: { userId: "ada" },
    },
    bobWeekly: {
      cron: "0 7 * * 1",
      block: tickBlock,
      principal: { userId: "bob", orgId: "acme" },
      catchUp: "none",
      sessionId: "bob-reports",
    },
  },
});

let stores: FlowStores;
let host: FlowHost;
let server: Awaited<ReturnType<typeof serveOverSocket>>;

beforeEach(async () => {
  stores = createMemoryStores();
  host = createFlowHost({
    flows: [reports],
    stores,
    resolvePrincipal,
    logger: silentLogger,
    recoveryIntervalMs: 0,
  });
  await host.start();
  server = await serveOverSocket(createHttpHandler(host));
});
afterEach(async () => {
  await server.close();
  await host.close();
});

async function list(headers: Record<string, string>, query = "") {
  const response = await fetch(`${server.url}/schedules${query}`, { headers });
  return {
    status: response.status,
    body: (await response.json()) as { schedules: Array<Record<string, unknown>> },
  };
}

describe("GET /schedules lists the schedules whose runs act as the caller", () => {
  it("each user sees their own schedule with its next tick, and no other", async () => {
    const ada = await list({ "x-user": "ada" });
    expect(ada.status).toBe(200);
    expect(ada.body.schedules).toEqual([
      {
        flowId: "reports",
        name: "adaDaily",
        cron: "0 6 * * *",
        timezone: "Europe/Berlin",
        catchUp: "latest",
        userId: "ada",
        nextTickAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT0[45]:00:00\.000Z$/),
        lastTick: null,
      },
    ]);
    const next = Date.parse(ada.body.schedules[0]!.nextTickAt as string);
    expect(next).toBeGreaterThan(Date.now());
    expect(next - Date.now()).toBeLessThanOrEqual(24 * 3_600_000);

    const bob = await list({ "x-user": "bob", "x-org": "acme" });
    expect(bob.body.schedules.map((s) => [s.name, s.orgId, s.sessionId, s.catchUp])).toEqual([
      ["bobWeekly", "acme", "bob-reports", "none"],
    ]);
  });

  it("a cross-owner probe lists nothing of another owner: userId and flowId only narrow", async () => {
    expect((await list({ "x-user": "ada" }, "?userId=bob")).body.schedules).toEqual([]);
    expect((await list({ "x-user": "mallory" })).body.schedules).toEqual([]);
    expect((await list({ "x-user": "mallory" }, "?userId=ada&flowId=reports")).body.schedules).toEqual([]);
    // Bob's user in another org is not bob of acme.
    expect((await list({ "x-user": "bob", "x-org": "globex" })).body.schedules).toEqual([]);
    expect((await list({ "x-user": "ada" }, "?flowId=reports")).body.schedules).toHaveLength(1);
  });

  it("an unidentified caller gets an empty list, never a refusal", async () => {
    const anonymous = await list({});
    expect(anonymous).toEqual({ status: 200, body: { schedules: [] } });
  });

  it("lastTick shows the newest stored tick and the request it started", async () => {
    const at = Date.parse("2026-01-05T07:00:00Z");
    await stores.schedules.claimTick(
      { flowId: "reports", schedule: "bobWeekly", at },
      { hostId: "h", until: at + 1_000 },
      at,
    );
    await stores.schedules.fireTick({ flowId: "reports", schedule: "bobWeekly", at }, 1, "request-1");
    const bob = await list({ "x-user": "bob", "x-org": "acme" });
    expect(bob.body.schedules[0]!.lastTick).toEqual({
      at: "2026-01-05T07:00:00.000Z",
      requestId: "request-1",
    });
  });

  it("is in the OpenAPI document", async () => {
    const response = await fetch(`${server.url}/openapi.json`);
    const document = (await response.json()) as { paths: Record<string, Record<string, unknown>> };
    expect(document.paths["/schedules"]?.get).toMatchObject({
      responses: { 200: { content: { "application/json": { schema: { required: ["schedules"] } } } } },
    });
  });
});
