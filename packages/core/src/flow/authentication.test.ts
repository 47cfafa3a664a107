import { describe, expect, it } from "vitest";
import { normalizeResolvedPrincipal } from "./authentication.js";

describe("normalizeResolvedPrincipal", () => {
  it("keeps non-empty string fields", () => {
    expect(normalizeResolvedPrincipal({ userId: "u1", orgId: "o1", tenantId: "t1" })).toEqual({
      userId: "u1",
      orgId: "o1",
      tenantId: "t1",
    });
  });

  it("treats non-string and empty values as absent (a header array, a number, an empty string)", () => {
    expect(normalizeResolvedPrincipal({ userId: ["a", "b"], orgId: 7, tenantId: "" })).toEqual({});
    expect(normalizeResolvedPrincipal({ userId: undefined, extra: "x" })).toEqual({});
  });

  it("yields null for null, undefined and non-objects, which fall through to defaultUserId", () => {
    expect(normalizeResolvedPrincipal(null)).toBeNull();
    expect(normalizeResolvedPrincipal(undefined)).toBeNull();
    expect(normalizeResolvedPrincipal("u1")).toBeNull();
  });
});
