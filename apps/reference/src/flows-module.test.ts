import { fileURLToPath } from "node:url";
import { loadFlowsModule, parseStoreSpec, serveFlows } from "@flowrt/cli";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { signDevToken } from "./auth/dev-tokens.js";
import { sendDelivery, signedSample } from "./webhooks/sample-deliveries.js";

// `flowrt serve src/flows.ts`: the flows module carries its resolver, webhook providers and inbound adapters, so
// the CLI serves the app's API (without the app's sign-in route and page) on any store.
describe("flowrt serve src/flows.ts", () => {
  let server: Awaited<ReturnType<typeof serveFlows>>;

  beforeAll(async () => {
    const module = await loadFlowsModule(fileURLToPath(new URL("./flows.ts", import.meta.url)));
    server = await serveFlows(module, { port: 0, host: "127.0.0.1", store: parseStoreSpec("memory") });
  });

  afterAll(async () => {
    await server?.close();
  });

  test("serves the notebook to a token holder, refuses a caller without one, and takes a signed delivery", async () => {
    const token = await signDevToken({ userId: "ada", orgId: "acme" });
    const created = await fetch(`${server.url}/notebook/sessions`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: "{}",
    });
    expect(created.status).toBe(201);
    expect(((await created.json()) as { session: { orgId: string } }).session.orgId).toBe("acme");
    const anonymous = await fetch(`${server.url}/notebook/sessions`, { method: "POST", body: "{}" });
    expect(anonymous.status).toBe(401);
    const origin = new URL(server.url).origin;
    expect((await sendDelivery(origin, signedSample("issues"))).status).toBe(202);
    expect((await fetch(`${server.url}/board-feed`)).status).toBe(401);
  });
});
