import type { PrincipalResolutionRequest } from "@flowrt/core";
import { describe, expectTypeOf, it } from "vitest";
import { createHmacVerifier, createHs256JwtVerifier, extractBearerToken, type JwtPayload } from "./index.js";

describe("auth helper types", () => {
  it("reads headers exactly as a resolver's request carries them", () => {
    const headers = {} as PrincipalResolutionRequest["headers"];
    expectTypeOf(extractBearerToken(headers.authorization)).toEqualTypeOf<string | null>();
    const verify = createHmacVerifier({ secret: "s", format: "raw" });
    expectTypeOf(verify(new Uint8Array(), headers["x-signature"])).toEqualTypeOf<boolean>();
  });

  it("resolves a JWT to its payload or null", () => {
    const verify = createHs256JwtVerifier({ secret: "s".repeat(32) });
    expectTypeOf(verify("t")).toEqualTypeOf<Promise<JwtPayload | null>>();
    expectTypeOf(verify).parameter(0).toBeUnknown();
  });

  it("requires a format", () => {
    // @ts-expect-error format is required
    createHmacVerifier({ secret: "s" });
  });
});
