import { createHmac } from "node:crypto";
import { afterEach, describe, expect, it, vi } from "vitest";
import { createHmacVerifier } from "./create-hmac-verifier.js";

const SECRET = "partner-shared-secret";
const BODY = JSON.stringify({ userId: "u_1", action: "sync" });
const NOW_S = 1_700_000_000;
const now = () => NOW_S * 1000;

const hex = (secret: string, data: string) => createHmac("sha256", secret).update(data).digest("hex");
const alphaHeader = (t: number | string, secret = SECRET, body = BODY) =>
  `t=${t},v1=${hex(secret, `${t}.${body}`)}`;

describe("createHmacVerifier — raw format", () => {
  const verify = createHmacVerifier({ secret: SECRET, format: "raw", prefix: "sha256=" });

  it("accepts GitHub's published test vector", () => {
    const github = createHmacVerifier({
      secret: "It's a Secret to Everybody",
      format: "raw",
      prefix: "sha256=",
    });
    expect(
      github("Hello, World!", "sha256=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17"),
    ).toBe(true);
  });

  it("accepts the prefixed signature over string, Buffer and ArrayBuffer bodies", () => {
    const header = `sha256=${hex(SECRET, BODY)}`;
    expect(verify(BODY, header)).toBe(true);
    expect(verify(Buffer.from(BODY), header)).toBe(true);
    expect(verify(new TextEncoder().encode(BODY).buffer, header)).toBe(true);
  });

  it("rejects a tampered body, a wrong secret and a missing prefix", () => {
    expect(verify(`${BODY} `, `sha256=${hex(SECRET, BODY)}`)).toBe(false);
    expect(verify(BODY, `sha256=${hex("other", BODY)}`)).toBe(false);
    expect(verify(BODY, hex(SECRET, BODY))).toBe(false);
  });

  it("accepts a signature made with any rotated secret", () => {
    const rotating = createHmacVerifier({ secret: ["next", SECRET], format: "raw", prefix: "sha256=" });
    expect(rotating(BODY, `sha256=${hex("next", BODY)}`)).toBe(true);
    expect(rotating(BODY, `sha256=${hex(SECRET, BODY)}`)).toBe(true);
    expect(rotating(BODY, `sha256=${hex("old", BODY)}`)).toBe(false);
  });

  it("supports sha512 with base64url", () => {
    const v = createHmacVerifier({
      secret: SECRET,
      format: "raw",
      algorithm: "sha512",
      encoding: "base64url",
    });
    expect(v(BODY, createHmac("sha512", SECRET).update(BODY).digest("base64url"))).toBe(true);
    expect(v(BODY, createHmac("sha512", SECRET).update(BODY).digest("hex"))).toBe(false);
  });

  it.each([
    ["missing", undefined],
    ["null", null],
    ["repeated (array)", [`sha256=${hex(SECRET, BODY)}`]],
    ["empty", ""],
    ["not hex", `sha256=${"q".repeat(64)}`],
    ["truncated", `sha256=${hex(SECRET, BODY).slice(0, 40)}`],
    ["comma-joined", `sha256=${hex(SECRET, BODY)}, sha256=${hex(SECRET, BODY)}`],
  ])("returns false for a %s header", (_name, header) => {
    expect(verify(BODY, header as never)).toBe(false);
  });

  it("returns false for a body that is not bytes or a string", () => {
    expect(verify({ userId: "u_1" } as never, `sha256=${hex(SECRET, BODY)}`)).toBe(false);
  });
});

describe("createHmacVerifier — alpha format", () => {
  const verify = createHmacVerifier({ secret: SECRET, format: "alpha", now });

  it("accepts t=<ts>,v1=<sig> over <ts>.<body>", () => {
    expect(verify(BODY, alphaHeader(NOW_S))).toBe(true);
  });

  it("rejects a tampered body, a wrong secret and a tampered timestamp", () => {
    expect(verify("{}", alphaHeader(NOW_S))).toBe(false);
    expect(verify(BODY, alphaHeader(NOW_S, "other"))).toBe(false);
    expect(verify(BODY, alphaHeader(NOW_S).replace(`t=${NOW_S}`, `t=${NOW_S + 1}`))).toBe(false);
  });

  it("rejects stale and future timestamps beyond the default 300 s window", () => {
    expect(verify(BODY, alphaHeader(NOW_S - 300))).toBe(true);
    expect(verify(BODY, alphaHeader(NOW_S + 300))).toBe(true);
    expect(verify(BODY, alphaHeader(NOW_S - 301))).toBe(false);
    expect(verify(BODY, alphaHeader(NOW_S + 301))).toBe(false);
  });

  it("honours toleranceSeconds", () => {
    const strict = createHmacVerifier({ secret: SECRET, format: "alpha", now, toleranceSeconds: 30 });
    expect(strict(BODY, alphaHeader(NOW_S - 30))).toBe(true);
    expect(strict(BODY, alphaHeader(NOW_S - 31))).toBe(false);
  });

  it("accepts when any of several v1 signatures matches", () => {
    const good = hex(SECRET, `${NOW_S}.${BODY}`);
    const bad = hex("retired", `${NOW_S}.${BODY}`);
    expect(verify(BODY, `t=${NOW_S},v1=${bad},v1=${good}`)).toBe(true);
    expect(verify(BODY, `t=${NOW_S},v1=${bad},v0=${good}`)).toBe(false);
  });

  it.each([
    ["no timestamp", `v1=${hex(SECRET, BODY)}`],
    ["no signature", `t=${NOW_S}`],
    ["two timestamps", `t=${NOW_S},t=${NOW_S},v1=${hex(SECRET, `${NOW_S}.${BODY}`)}`],
    ["decimal timestamp", alphaHeader(`${NOW_S}.0`)],
    ["item without =", `${alphaHeader(NOW_S)},junk`],
  ])("returns false for a garbled header (%s)", (_name, header) => {
    expect(verify(BODY, header)).toBe(false);
  });

  it("returns false when the clock is broken", () => {
    const broken = createHmacVerifier({ secret: SECRET, format: "alpha", now: () => Number.NaN });
    expect(broken(BODY, alphaHeader(NOW_S))).toBe(false);
  });
});

describe("createHmacVerifier — construction", () => {
  it.each<[string, Record<string, unknown>, RegExp]>([
    ["empty secret", { secret: "", format: "raw" }, /secret/],
    ["empty secret list", { secret: [], format: "raw" }, /secret/],
    ["unknown format", { secret: SECRET, format: "jwt" }, /format/],
    ["prefix on alpha", { secret: SECRET, format: "alpha", prefix: "x" }, /prefix/],
    ["toleranceSeconds on raw", { secret: SECRET, format: "raw", toleranceSeconds: 5 }, /toleranceSeconds/],
    ["negative tolerance", { secret: SECRET, format: "alpha", toleranceSeconds: -1 }, /toleranceSeconds/],
    ["unknown algorithm", { secret: SECRET, format: "raw", algorithm: "md5" }, /algorithm/],
    ["unknown encoding", { secret: SECRET, format: "raw", encoding: "utf8" }, /encoding/],
  ])("throws a TypeError for %s", (_name, options, message) => {
    expect(() => createHmacVerifier(options as never)).toThrow(TypeError);
    expect(() => createHmacVerifier(options as never)).toThrow(message);
  });

  it("keeps the secret out of error messages", () => {
    expect(() => createHmacVerifier({ secret: [SECRET, ""], format: "raw" })).toThrow(
      expect.objectContaining({ message: expect.not.stringContaining(SECRET) }),
    );
  });
});

describe("createHmacVerifier without a clock of its own", () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it("reads the current time at each check, so fake timers set after it was built apply", () => {
    const verify = createHmacVerifier({ secret: SECRET, format: "alpha" });
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(NOW_S * 1000);
    expect(verify(BODY, alphaHeader(NOW_S))).toBe(true);
    vi.setSystemTime((NOW_S + 301) * 1000);
    expect(verify(BODY, alphaHeader(NOW_S))).toBe(false);
  });
});
