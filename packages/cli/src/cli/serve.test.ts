import { fileURLToPath } from "node:url";
import { defineFlow, TERMINAL_REQUEST_STATUSES } from "@flowrt/core";
import request from "supertest";
import { describe, expect, test } from "vitest";
import { notebook, slow } from "../testing/fixture-flows.js";
import { loadFlowsModule } from "./load-flows-module.js";
import { assertSafeBind, serveFlows, unauthenticatedFlows } from "./serve.js";

describe("non-loopback refusal", () => {
  test("names every flow without a resolver of its own when the module has none", () => {
    const guarded = defineFlow({
      kind: "guarded",
      authentication: { resolvePrincipal: () => ({ userId: "u" }) },
      actions: {},
    });
    const copy = notebook.instance({ id: "notebook-2" });
    expect(unauthenticatedFlows({ flows: [notebook, guarded, slow, copy] })).toEqual([
      "notebook",
      "slow",
      "notebook-2",
    ]);
    expect(() => assertSafeBind({ flows: [slow] }, "0.0.0.0")).toThrow(
      /Refusing to listen on 0.0.0.0: flow "slow" has no authentication/,
    );
  });

  test("a module-level resolver covers every flow", () => {
    expect(unauthenticatedFlows({ flows: [notebook, slow], resolvePrincipal: () => null })).toEqual([]);
    expect(() =>
      assertSafeBind({ flows: [notebook], resolvePrincipal: () => null }, "0.0.0.0"),
    ).not.toThrow();
  });

  test("loopback addresses are always allowed", () => {
    for (const host of ["127.0.0.1", "::1", "localhost"]) {
      expect(() => assertSafeBind({ flows: [notebook] }, host)).not.toThrow();
    }
  });
});

test("serves the routes of the module's inbound adapters beside the API", async () => {
  const packageDir = fileURLToPath(new URL("../..", import.meta.url));
  const module = await loadFlowsModule("src/testing/cli-flows-with-inbound.ts", packageDir);
  const server = await serveFlows(module, { port: 0, host: "127.0.0.1", store: { kind: "memory" } });
  try {
    const origin = new URL(server.url).origin;
    const res = await request(origin)
      .post("/hooks/note")
      .type("form")
      .send("user=ada&key=a&title=Hooked")
      .expect(202);
    let record = await server.host.stores.requests.get(res.body.requestId);
    for (let i = 0; i < 200 && !(record && TERMINAL_REQUEST_STATUSES.includes(record.status)); i++) {
      await new Promise((resolve) => setTimeout(resolve, 10));
      record = await server.host.stores.requests.get(res.body.requestId);
    }
    expect(record).toMatchObject({ status: "completed", userId: "ada", output: { added: 1 } });
    await request(server.url).get("").expect(200);
  } finally {
    await server.close();
  }
});
