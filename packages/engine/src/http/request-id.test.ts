import { defineFlow, handler } from "@flowrt/core";
import { createMemoryStores } from "@flowrt/store-memory";
import { afterEach, describe, expect, it } from "vitest";
import { createFlowHost, type FlowHost } from "../host.js";
import { recordingLogger } from "../testing/recording-logger.js";
import { serveOverSocket } from "../webhooks/testing/webhook-harness.js";
import { createHttpHandler } from "./handler.js";
import { requestIdOf } from "./request-id.js";

const fail = handler({
  name: "fail",
  execute: async () => {
    throw new Error("secret internals");
  },
});
const flow = defineFlow({
  kind: "plain",
  authentication: { requireUser: false, defaultUserId: "u1" },
  actions: { fail: { block: fail } },
});

let closing: (() => Promise<void>) | undefined;
afterEach(async () => {
  await closing?.();
  closing = undefined;
});

async function served(options: { accessLog?: boolean } = {}) {
  const { logger, lines } = recordingLogger();
  const host: FlowHost = createFlowHost({
    flows: [flow],
    stores: createMemoryStores(),
    logger,
    recoveryIntervalMs: 0,
    ...options,
  });
  await host.start();
  const server = await serveOverSocket(createHttpHandler(host));
  closing = async () => {
    await server.close();
    await host.close();
  };
  return { url: server.url, lines, host };
}

describe("requestIdOf", () => {
  it("keeps 1 to 128 characters of [A-Za-z0-9._:-], the first of several, and replaces anything else", () => {
    expect(requestIdOf({ "x-request-id": "a" })).toBe("a");
    expect(requestIdOf({ "x-request-id": "k".repeat(128) })).toBe("k".repeat(128));
    expect(requestIdOf({ "x-request-id": ["first-1", "second"] })).toBe("first-1");
    for (const bad of ["", "k".repeat(129), "a b", "a\nb", 'a"b', "ü", undefined]) {
      expect(requestIdOf({ "x-request-id": bad })).toMatch(
        /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[0-9a-f]{4}-[0-9a-f]{12}$/,
      );
    }
  });
});

describe("createHttpHandler over node:http: the id and the access line without any framework", () => {
  it("echoes the id, logs one access line with the route pattern, and binds reqId into the run's failure line", async () => {
    const { url, lines } = await served();
    const started = await fetch(`${url}/plain/actions/fail`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-request-id": "node-1" },
      body: JSON.stringify({ input: null }),
    });
    expect(started.status).toBe(202);
    expect(started.headers.get("x-request-id")).toBe("node-1");
    const access = lines.filter((line) => line.msg === "request completed");
    expect(access).toEqual([
      {
        level: "info",
        msg: "request completed",
        fields: {
          reqId: "node-1",
          method: "POST",
          route: "/api/flows/:flowId/actions/:action",
          status: 202,
          durationMs: expect.any(Number),
        },
      },
    ]);
    await expect
      .poll(() => lines.find((line) => line.msg === "request failed")?.fields)
      .toMatchObject({
        reqId: "node-1",
        flowId: "plain",
        action: "fail",
        userId: "u1",
        errorId: expect.any(String),
      });

    const missing = await fetch(`${url}/nothing/here/at/all`);
    expect(missing.status).toBe(404);
    expect(missing.headers.get("x-request-id")).toEqual(expect.any(String));
    expect(lines.at(-1)).toMatchObject({
      msg: "request completed",
      fields: { route: "(unmatched)", status: 404, reqId: missing.headers.get("x-request-id") },
    });
  });

  it("accessLog: false: no access line, the id still echoed", async () => {
    const { url, lines } = await served({ accessLog: false });
    const answer = await fetch(`${url}/openapi.json`, { headers: { "x-request-id": "q-1" } });
    expect(answer.headers.get("x-request-id")).toBe("q-1");
    expect(lines.filter((line) => line.msg === "request completed")).toEqual([]);
  });
});
