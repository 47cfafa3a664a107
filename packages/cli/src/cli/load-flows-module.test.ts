import { fileURLToPath } from "node:url";
import { describe, expect, test } from "vitest";
import { notebook, slow } from "../testing/fixture-flows.js";
import { flowsFromExports, loadFlowsModule } from "./load-flows-module.js";
import { UsageError } from "./store-spec.js";

describe("flowsFromExports", () => {
  test("a default export array wins over everything else", () => {
    expect(flowsFromExports({ default: [slow], flows: [notebook], notebook }).flows).toEqual([slow]);
  });

  test("else a named `flows` array", () => {
    expect(flowsFromExports({ flows: [notebook], slow }).flows).toEqual([notebook]);
  });

  test("else every exported flow definition, default included, each once", () => {
    const picked = flowsFromExports({ default: notebook, notebook, slow, other: 42, helper: () => 1 }).flows;
    expect(picked).toEqual([notebook, slow]);
  });

  test("named instances are separate flows", () => {
    const copy = notebook.instance({ id: "notebook-2" });
    expect(flowsFromExports({ notebook, copy }).flows.map((f) => f.id)).toEqual(["notebook", "notebook-2"]);
  });

  test("passes resolvePrincipal and webhookProviders through", () => {
    const resolvePrincipal = () => ({ userId: "u" });
    const webhookProviders = { signed: { verify: () => true } };
    expect(flowsFromExports({ notebook, resolvePrincipal, webhookProviders })).toEqual({
      flows: [notebook],
      resolvePrincipal,
      webhookProviders,
    });
  });

  test("passes inbound adapters through", () => {
    const inbound = [{ source: "hooks", createBindings: () => ({ routes: [] }) }];
    expect(flowsFromExports({ notebook, inbound })).toEqual({ flows: [notebook], inbound });
  });

  test.each([
    [{}, /exports no flows/],
    [{ notebook, inbound: { source: "x" } }, /"inbound" export must be an array of inbound adapters/],
    [{ notebook, inbound: [{ source: "x" }] }, /"inbound" export must be an array of inbound adapters/],
    [{ default: [notebook, {}] }, /default export must be an array of flow definitions/],
    [{ flows: notebook }, /"flows" export must be an array/],
    [{ notebook, resolvePrincipal: "x" }, /"resolvePrincipal" export must be a function/],
    [{ notebook, webhookProviders: null }, /"webhookProviders" export must be an object/],
  ])("refuses %o", (exports, message) => {
    expect(() => flowsFromExports(exports as Record<string, unknown>)).toThrow(UsageError);
    expect(() => flowsFromExports(exports as Record<string, unknown>)).toThrow(message);
  });
});

test("loadFlowsModule imports a TypeScript module relative to cwd", async () => {
  const packageDir = fileURLToPath(new URL("../..", import.meta.url));
  const loaded = await loadFlowsModule("src/testing/cli-flows-with-resolver.ts", packageDir);
  expect(loaded.flows.map((f) => f.id)).toEqual(["notebook"]);
  expect(typeof loaded.resolvePrincipal).toBe("function");
  const withInbound = await loadFlowsModule("src/testing/cli-flows-with-inbound.ts", packageDir);
  expect(withInbound.inbound?.map((adapter) => adapter.source)).toEqual(["note-hook"]);
  await expect(loadFlowsModule("src/testing/missing.ts", packageDir)).rejects.toThrow(/No flows module at/);
});
