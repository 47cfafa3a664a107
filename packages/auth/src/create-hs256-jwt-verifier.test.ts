import { SignJWT } from "jose";
import { afterEach, describe, expect, it, vi } from "vitest";
import { createHs256JwtVerifier } from "./create-hs256-jwt-verifier.js";

const SECRET = "a-very-long-test-secret-of-at-least-32-bytes";
const KEY = new TextEncoder().encode(SECRET);
const NOW_S = 1_700_000_000;
const now = () => NOW_S * 1000;
const ISS = "https://auth.example.com";
const AUD = "flowrt";

interface TokenOptions {
  alg?: string;
  key?: Uint8Array;
  claims?: Record<string, unknown>;
  iss?: string;
  aud?: string | string[];
  exp?: number | null;
  nbf?: number;
}

function token(options: TokenOptions = {}): Promise<string> {
  const jwt = new SignJWT({ sub: "u_1", orgId: "o_1", ...options.claims })
    .setProtectedHeader({ alg: options.alg ?? "HS256", typ: "JWT" })
    .setIssuedAt(NOW_S - 10)
    .setIssuer(options.iss ?? ISS)
    .setAudience(options.aud ?? AUD);
  if (options.exp !== null) jwt.setExpirationTime(options.exp ?? NOW_S + 3600);
  if (options.nbf !== undefined) jwt.setNotBefore(options.nbf);
  return jwt.sign(options.key ?? KEY);
}

const b64url = (value: unknown) => Buffer.from(JSON.stringify(value)).toString("base64url");

describe("createHs256JwtVerifier", () => {
  const verify = createHs256JwtVerifier({ secret: SECRET, issuer: ISS, audience: AUD, now });

  it("returns the payload of a valid HS256 token", async () => {
    expect(await verify(await token())).toMatchObject({ sub: "u_1", orgId: "o_1", iss: ISS, aud: AUD });
  });

  it("accepts a secret given as bytes", async () => {
    const bytes = createHs256JwtVerifier({ secret: KEY, now });
    expect(await bytes(await token())).toMatchObject({ sub: "u_1" });
  });

  it("rejects every other algorithm, even with the right key", async () => {
    const longKey = new TextEncoder().encode(SECRET.repeat(2));
    const hs384 = await token({ alg: "HS384", key: longKey });
    const lenient = createHs256JwtVerifier({ secret: longKey, now });
    expect(await lenient(hs384)).toBeNull();
    expect(await lenient(await token({ key: longKey }))).not.toBeNull();
  });

  it("rejects an unsigned alg:none token", async () => {
    const claims = { sub: "u_1", iss: ISS, aud: AUD, exp: NOW_S + 3600 };
    const none = `${b64url({ alg: "none", typ: "JWT" })}.${b64url(claims)}.`;
    expect(await verify(none)).toBeNull();
    const noneUpper = `${b64url({ alg: "None" })}.${b64url(claims)}.`;
    expect(await verify(noneUpper)).toBeNull();
  });

  it("rejects a token whose header claims HS256 but whose payload or signature was altered", async () => {
    const [header, payload, signature] = (await token()).split(".") as [string, string, string];
    const forged = b64url({ ...JSON.parse(Buffer.from(payload, "base64url").toString()), sub: "admin" });
    expect(await verify(`${header}.${forged}.${signature}`)).toBeNull();
    const flipped = (signature[0] === "A" ? "B" : "A") + signature.slice(1);
    expect(await verify(`${header}.${payload}.${flipped}`)).toBeNull();
    expect(await verify(`${header}.${payload}.`)).toBeNull();
  });

  it("accepts only the canonical spelling of a token: padding, whitespace and the +/ alphabet are refused", async () => {
    const good = await token();
    const [head, body, signature] = good.split(".") as [string, string, string];
    expect(await verify(good)).not.toBeNull();
    const variants = [
      `${good}=`,
      `${good}\n`,
      `${good} `,
      ` ${good}`,
      `${head}.${body}.${signature.slice(0, 10)} ${signature.slice(10)}`,
      `${head}.${body}.${signature.replaceAll("-", "+").replaceAll("_", "/")}`,
      `${head}=.${body}.${signature}`,
      `${head}.${body}`,
      `${head}.${body}.${signature}.x`,
    ];
    for (const variant of variants) expect(await verify(variant), JSON.stringify(variant)).toBeNull();
  });

  it("answers null, never rejects, when the injected clock fails", async () => {
    const broken = createHs256JwtVerifier({
      secret: SECRET,
      now: () => {
        throw new Error("clock unavailable");
      },
    });
    await expect(broken(await token())).resolves.toBeNull();
    const bigint = createHs256JwtVerifier({ secret: SECRET, now: (() => 1n) as unknown as () => number });
    await expect(bigint(await token())).resolves.toBeNull();
  });

  it("rejects a token signed with another secret", async () => {
    expect(await verify(await token({ key: new TextEncoder().encode("x".repeat(40)) }))).toBeNull();
  });

  it("accepts a token signed with any rotated secret", async () => {
    const next = "the-next-secret-which-is-also-long-enough";
    const rotating = createHs256JwtVerifier({ secret: [next, SECRET], now });
    expect(await rotating(await token())).not.toBeNull();
    expect(await rotating(await token({ key: new TextEncoder().encode(next) }))).not.toBeNull();
    expect(await rotating(await token({ key: new TextEncoder().encode("y".repeat(40)) }))).toBeNull();
  });

  it("rejects an expired token, within no default skew", async () => {
    expect(await verify(await token({ exp: NOW_S - 1 }))).toBeNull();
    expect(await verify(await token({ exp: NOW_S + 1 }))).not.toBeNull();
  });

  it("applies clockSkewSeconds to exp and nbf", async () => {
    const skewed = createHs256JwtVerifier({ secret: SECRET, now, clockSkewSeconds: 30 });
    expect(await skewed(await token({ exp: NOW_S - 20 }))).not.toBeNull();
    expect(await skewed(await token({ exp: NOW_S - 40 }))).toBeNull();
    expect(await skewed(await token({ nbf: NOW_S + 20 }))).not.toBeNull();
    expect(await skewed(await token({ nbf: NOW_S + 40 }))).toBeNull();
  });

  it("rejects a token not yet valid", async () => {
    expect(await verify(await token({ nbf: NOW_S + 5 }))).toBeNull();
    expect(await verify(await token({ nbf: NOW_S }))).not.toBeNull();
  });

  it("rejects a wrong or missing issuer and audience", async () => {
    expect(await verify(await token({ iss: "https://evil.example.com" }))).toBeNull();
    expect(await verify(await token({ aud: "other-app" }))).toBeNull();
    expect(await verify(await token({ aud: ["other-app", AUD] }))).not.toBeNull();
    const noClaims = await new SignJWT({ sub: "u_1" }).setProtectedHeader({ alg: "HS256" }).sign(KEY);
    expect(await verify(noClaims)).toBeNull();
    expect(await createHs256JwtVerifier({ secret: SECRET, now })(noClaims)).toMatchObject({ sub: "u_1" });
  });

  it("accepts any of several issuers and audiences", async () => {
    const multi = createHs256JwtVerifier({ secret: SECRET, now, issuer: ["a", ISS], audience: ["b", AUD] });
    expect(await multi(await token())).not.toBeNull();
  });

  it.each([
    ["empty", ""],
    ["garbage", "not a token"],
    ["two segments", "abc.def"],
    ["four segments", "a.b.c.d"],
    ["bad base64", "!!!.???.***"],
    ["header not JSON", `${Buffer.from("nope").toString("base64url")}.e30.sig`],
    ["payload not JSON", `${b64url({ alg: "HS256" })}.${Buffer.from("nope").toString("base64url")}.sig`],
    ["a bearer header", "Bearer abc.def.ghi"],
  ])("resolves to null for malformed input (%s)", async (_name, input) => {
    await expect(verify(input)).resolves.toBeNull();
  });

  it.each([[undefined], [null], [42], [{}], [["a.b.c"]], [new TextEncoder().encode("a.b.c")]])(
    "resolves to null for non-string input %#",
    async (input) => {
      await expect(verify(input)).resolves.toBeNull();
    },
  );

  it("resolves to null when the clock is broken", async () => {
    const broken = createHs256JwtVerifier({ secret: SECRET, now: () => Number.NaN });
    expect(await broken(await token())).toBeNull();
  });

  it.each<[string, Record<string, unknown>, RegExp]>([
    ["a short secret (RFC 7518 §3.2)", { secret: "short" }, /32 bytes/],
    ["an empty secret list", { secret: [] }, /secret/],
    ["a non-string secret", { secret: 42 }, /secret/],
    ["a negative skew", { secret: SECRET, clockSkewSeconds: -1 }, /clockSkewSeconds/],
    ["an empty issuer", { secret: SECRET, issuer: "" }, /issuer/],
    ["an empty audience list", { secret: SECRET, audience: [] }, /audience/],
    ["a non-function clock", { secret: SECRET, now: 1 }, /now/],
  ])("throws a TypeError at construction for %s", (_name, options, message) => {
    expect(() => createHs256JwtVerifier(options as never)).toThrow(TypeError);
    expect(() => createHs256JwtVerifier(options as never)).toThrow(message);
  });
});

describe("createHs256JwtVerifier without a clock of its own", () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it("reads the current time at each check, so fake timers set after it was built apply", async () => {
    const verify = createHs256JwtVerifier({ secret: SECRET, issuer: ISS, audience: AUD });
    const jwt = await token();
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(NOW_S * 1000);
    expect(await verify(jwt)).toMatchObject({ sub: "u_1" });
    vi.setSystemTime((NOW_S + 3601) * 1000);
    expect(await verify(jwt)).toBeNull();
  });
});
