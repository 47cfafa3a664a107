import { isPrincipalResolutionError, PrincipalResolutionError, type PrincipalResolver } from "@flowrt/core";
import { SignJWT } from "jose";
import { describe, expect, it } from "vitest";
import { createHmacVerifier, createHs256JwtVerifier, extractBearerToken } from "./index.js";

// The two resolvers of the README, run against resolution contexts as the engine builds them.
const secret = "development-secret-of-at-least-32-bytes!";
const verifyJwt = createHs256JwtVerifier({
  secret,
  issuer: "https://auth.example.com",
  audience: "notebook",
});

const resolvePrincipal: PrincipalResolver = async (ctx) => {
  const token = extractBearerToken(ctx.request?.headers.authorization);
  if (token === null) return null;
  const claims = await verifyJwt(token);
  if (claims === null || typeof claims.sub !== "string") {
    throw new PrincipalResolutionError("invalid or expired token", { status: 401 });
  }
  return { userId: claims.sub, orgId: typeof claims.org === "string" ? claims.org : undefined };
};

const partnerSecret = "partner-secret";
const verifySignature = createHmacVerifier({ secret: partnerSecret, format: "raw", prefix: "sha256=" });
const resolvePartner: PrincipalResolver = (ctx) => {
  const ok = verifySignature(ctx.rawBody ?? "", ctx.request?.headers["x-partner-signature"]);
  if (!ok) throw new PrincipalResolutionError("bad signature", { status: 401 });
  return { userId: "partner:acme" };
};

function context(headers: Record<string, string | string[] | undefined>, rawBody?: Uint8Array) {
  return {
    source: "http",
    request: { method: "POST", url: "/api/flows/notebook/actions/add", cookies: {}, headers },
    envelope: { flowKind: "notebook", flowId: "notebook", metadata: {} },
    rawBody,
  };
}

const sign = (claims: Record<string, unknown>, issuer = "https://auth.example.com") =>
  new SignJWT(claims)
    .setProtectedHeader({ alg: "HS256" })
    .setSubject("user_42")
    .setIssuer(issuer)
    .setAudience("notebook")
    .setExpirationTime("10m")
    .sign(new TextEncoder().encode(secret));

describe("README resolver examples", () => {
  it("resolves a valid bearer token to its subject and org", async () => {
    const jwt = await sign({ org: "acme" });
    expect(await resolvePrincipal(context({ authorization: `Bearer ${jwt}` }))).toEqual({
      userId: "user_42",
      orgId: "acme",
    });
  });

  it("falls through (null) without a bearer credential", async () => {
    expect(await resolvePrincipal(context({}))).toBeNull();
    expect(await resolvePrincipal(context({ authorization: "Basic dTpw" }))).toBeNull();
  });

  it("refuses a token from another issuer with a 401 PrincipalResolutionError", async () => {
    const jwt = await sign({}, "https://evil.example.com");
    const error = await Promise.resolve(resolvePrincipal(context({ authorization: `Bearer ${jwt}` }))).catch(
      (e: unknown) => e,
    );
    expect(isPrincipalResolutionError(error)).toBe(true);
    expect((error as PrincipalResolutionError).status).toBe(401);
  });

  it("accepts a signed service call and refuses a tampered one", async () => {
    const body = new TextEncoder().encode('{"input":{}}');
    const { createHmac } = await import("node:crypto");
    const signature = `sha256=${createHmac("sha256", partnerSecret).update(body).digest("hex")}`;
    expect(await resolvePartner(context({ "x-partner-signature": signature }, body))).toEqual({
      userId: "partner:acme",
    });
    const tampered = new TextEncoder().encode('{"input":{"admin":true}}');
    expect(() => resolvePartner(context({ "x-partner-signature": signature }, tampered))).toThrow(
      PrincipalResolutionError,
    );
  });
});
