import { defineFlow, handler } from "@flowrt/core";
import { describe, expect, it } from "vitest";
import { withHost } from "../host/testing/fixtures.js";
import { createHttpHandler } from "./handler.js";
import type { HttpRequest } from "./types.js";

const echo = defineFlow({
  kind: "echo",
  authentication: { requireUser: false, defaultUserId: "dev" },
  actions: { echo: { block: handler({ name: "echo", execute: async (input) => input }) } },
});

function post(path: string, body: string): HttpRequest {
  return { method: "POST", path, url: path, query: {}, headers: {}, rawBody: Buffer.from(body) };
}

describe("the body limit", () => {
  it("a body over the limit is 413 payload-too-large on every route, and nothing is written", async () => {
    await withHost({ flows: [echo] }, async (host, stores) => {
      const handle = createHttpHandler(host, { bodyLimit: 16 });
      const body = JSON.stringify({ input: "seventeen bytes" }); // 27 bytes
      for (const path of ["/echo/actions/echo", "/echo/sessions", "/echo/webhooks/none"]) {
        const response = await handle(post(path, body));
        expect(response.status).toBe(413);
        expect(response.headers["content-type"]).toBe("application/problem+json");
        expect(response.body).toMatchObject({ code: "payload-too-large", limit: 16 });
      }
      expect((await stores.sessions.list({})).total).toBe(0);
      expect(await stores.requests.listByStatus(["queued", "running", "completed", "failed"])).toEqual([]);
    });
  });

  it("a body of exactly the limit is served; one byte more is refused", async () => {
    await withHost({ flows: [echo] }, async (host) => {
      const handle = createHttpHandler(host, { bodyLimit: 16 });
      const atLimit = '{"input":123456}';
      expect(Buffer.byteLength(atLimit)).toBe(16);
      expect((await handle(post("/echo/actions/echo", atLimit))).status).toBe(202);
      expect((await handle(post("/echo/actions/echo", '{"input":1234567}'))).status).toBe(413);
    });
  });
});
