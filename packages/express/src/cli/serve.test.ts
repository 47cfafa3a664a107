import { defineFlow } from "@flowrt/core";
import { describe, expect, test } from "vitest";
import { notebook, slow } from "../testing/fixture-flows.js";
import { assertSafeBind, unauthenticatedFlows } from "./serve.js";

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
