import { createHmac } from "node:crypto";
import { describe, expect, it } from "vitest";
import { createWebhookVerifier, type ParseSignature } from "./create-webhook-verifier.js";

const SECRET = "s3cret";
const BODY = '{"event":"ping"}';
const NOW_S = 1_700_000_000;
const now = () => NOW_S * 1000;

function mac(algorithm: string, data: string, encoding: "hex" | "base64" | "base64url", secret = SECRET) {
  return createHmac(algorithm, secret).update(data).digest(encoding);
}

describe("createWebhookVerifier — raw format", () => {
  it.each([
    ["sha256", "hex"],
    ["sha1", "hex"],
    ["sha512", "hex"],
    ["sha256", "base64"],
    ["sha512", "base64url"],
  ] as const)("verifies %s signatures written in %s", (algorithm, encoding) => {
    const verify = createWebhookVerifier({
      format: "raw",
      header: "x-sig",
      secret: SECRET,
      algorithm,
      encoding,
    });
    expect(verify(BODY, { "x-sig": mac(algorithm, BODY, encoding) })).toBe(true);
    expect(verify(`${BODY}!`, { "x-sig": mac(algorithm, BODY, encoding) })).toBe(false);
    expect(verify(BODY, { "x-sig": mac(algorithm, BODY, encoding, "other") })).toBe(false);
  });

  it("defaults to sha256 and hex, without a prefix", () => {
    const verify = createWebhookVerifier({ format: "raw", header: "x-sig", secret: SECRET });
    expect(verify(BODY, { "x-sig": mac("sha256", BODY, "hex") })).toBe(true);
    expect(verify(BODY, { "x-sig": `sha256=${mac("sha256", BODY, "hex")}` })).toBe(false);
  });

  it("does not confuse a signature from another algorithm", () => {
    const verify = createWebhookVerifier({
      format: "raw",
      header: "x-sig",
      secret: SECRET,
      algorithm: "sha512",
    });
    expect(verify(BODY, { "x-sig": mac("sha256", BODY, "hex") })).toBe(false);
  });

  it("strips the prefix and requires it", () => {
    const verify = createWebhookVerifier({
      format: "raw",
      header: "X-Sig",
      secret: SECRET,
      prefix: "sha1=",
      algorithm: "sha1",
    });
    expect(verify(BODY, { "x-sig": `sha1=${mac("sha1", BODY, "hex")}` })).toBe(true);
    expect(verify(BODY, { "x-sig": mac("sha1", BODY, "hex") })).toBe(false);
  });

  it("rejects base64 that only decodes to the right bytes leniently", () => {
    const verify = createWebhookVerifier({
      format: "raw",
      header: "x-sig",
      secret: SECRET,
      encoding: "base64",
    });
    const good = mac("sha256", BODY, "base64");
    expect(verify(BODY, { "x-sig": good.replace(/=+$/, "") })).toBe(true);
    expect(verify(BODY, { "x-sig": `${good}!` })).toBe(false);
    expect(verify(BODY, { "x-sig": ` ${good}` })).toBe(false);
    // The base64url spelling of the same bytes is not base64.
    const urlSafe = Buffer.from(good, "base64").toString("base64url");
    expect(urlSafe).not.toBe(good.replace(/=+$/, ""));
    expect(verify(BODY, { "x-sig": urlSafe })).toBe(false);
    // A last character with non-zero padding bits decodes to the same bytes; only the canonical form is accepted.
    const tweaked = good.slice(0, 42) + String.fromCharCode(good.charCodeAt(42) + 1) + good.slice(43);
    expect(Buffer.from(tweaked, "base64").equals(Buffer.from(good, "base64"))).toBe(true);
    expect(verify(BODY, { "x-sig": tweaked })).toBe(false);
  });

  it("accepts string, Buffer, Uint8Array and ArrayBuffer bodies alike", () => {
    const verify = createWebhookVerifier({ format: "raw", header: "x-sig", secret: SECRET });
    const headers = { "x-sig": mac("sha256", BODY, "hex") };
    const bytes = new TextEncoder().encode(BODY);
    expect(verify(BODY, headers)).toBe(true);
    expect(verify(Buffer.from(BODY), headers)).toBe(true);
    expect(verify(bytes, headers)).toBe(true);
    expect(verify(bytes.buffer, headers)).toBe(true);
    expect(verify(new DataView(bytes.buffer) as never, headers)).toBe(false);
  });
});

describe("createWebhookVerifier — string bodies", () => {
  it.each([
    ["non-ASCII text", '{"name":"Zoë 🚀"}'],
    ["a lone surrogate (signed as U+FFFD, as Buffer.from does)", '{"x":"\ud800"}'],
  ])("signs a string body as its UTF-8 bytes: %s", (_name, text) => {
    const bytes = Buffer.from(text, "utf8");
    const hex = createHmac("sha256", SECRET).update(bytes).digest("hex");
    const raw = createWebhookVerifier({ format: "raw", header: "x-sig", secret: SECRET });
    expect(raw(text, { "x-sig": hex })).toBe(true);
    expect(raw(bytes, { "x-sig": hex })).toBe(true);
    const alpha = createWebhookVerifier({ format: "alpha", header: "x-sig", secret: SECRET, now });
    const signed = createHmac("sha256", SECRET).update(`${NOW_S}.`).update(bytes).digest("hex");
    expect(alpha(text, { "x-sig": `t=${NOW_S},v1=${signed}` })).toBe(true);
  });
});

describe("createWebhookVerifier — alpha format", () => {
  it("supports other algorithms and encodings over <timestamp>.<body>", () => {
    const verify = createWebhookVerifier({
      format: "alpha",
      header: "x-sig",
      secret: SECRET,
      algorithm: "sha512",
      encoding: "base64url",
      now,
    });
    const sig = mac("sha512", `${NOW_S}.${BODY}`, "base64url");
    expect(verify(BODY, { "x-sig": `t=${NOW_S},v1=${sig}` })).toBe(true);
    expect(
      verify(BODY, {
        "x-sig": `t=${NOW_S - 301},v1=${mac("sha512", `${NOW_S - 301}.${BODY}`, "base64url")}`,
      }),
    ).toBe(false);
  });
});

describe("createWebhookVerifier — custom format", () => {
  // A scheme of the form "ts=<seconds>;sig=<base64>" over "<seconds>|<body>".
  const parseSignature: ParseSignature = (value, { rawBody }) => {
    const match = /^ts=(\d+);sig=(.+)$/.exec(value);
    if (!match) return null;
    return { timestamp: match[1]!, signatures: [match[2]!], signedPayload: [`${match[1]}|`, rawBody] };
  };
  const verify = createWebhookVerifier({
    format: "custom",
    header: "x-sig",
    secret: SECRET,
    encoding: "base64",
    parseSignature,
    now,
  });
  const header = (ts: number, body = BODY, secret = SECRET) => ({
    "x-sig": `ts=${ts};sig=${mac("sha256", `${ts}|${body}`, "base64", secret)}`,
  });

  it("verifies what the parser says was signed", () => {
    expect(verify(BODY, header(NOW_S))).toBe(true);
    expect(verify("{}", header(NOW_S))).toBe(false);
    expect(verify(BODY, header(NOW_S, BODY, "nope"))).toBe(false);
  });

  it("applies the default 300 s window to parsed timestamps, both ways", () => {
    expect(verify(BODY, header(NOW_S - 300))).toBe(true);
    expect(verify(BODY, header(NOW_S - 301))).toBe(false);
    expect(verify(BODY, header(NOW_S + 301))).toBe(false);
  });

  it("signs the raw body when the parser names no payload, and accepts numeric timestamps", () => {
    const numeric = createWebhookVerifier({
      format: "custom",
      header: "x-sig",
      secret: SECRET,
      now,
      parseSignature: (value, { header }) => ({
        signatures: value.split(" "),
        timestamp: Number(header("x-ts")),
      }),
    });
    const sig = mac("sha256", BODY, "hex");
    expect(numeric(BODY, { "x-sig": `deadbeef ${sig}`, "x-ts": String(NOW_S) })).toBe(true);
    expect(numeric(BODY, { "x-sig": sig, "x-ts": String(NOW_S - 1000) })).toBe(false);
    expect(numeric(BODY, { "x-sig": sig, "x-ts": "1.5" })).toBe(false);
  });

  it("with an explicit toleranceSeconds, a parse without a timestamp does not verify", () => {
    const make = (toleranceSeconds?: number) =>
      createWebhookVerifier({
        format: "custom",
        header: "x-sig",
        secret: SECRET,
        toleranceSeconds,
        parseSignature: (value) => ({ signatures: [value] }),
      });
    const headers = { "x-sig": mac("sha256", BODY, "hex") };
    expect(make()(BODY, headers)).toBe(true);
    expect(make(60)(BODY, headers)).toBe(false);
  });

  it("takes a single signed part, string or bytes, as well as a list", () => {
    const make = (signedPayload: string | Uint8Array) =>
      createWebhookVerifier({
        format: "custom",
        header: "x-sig",
        secret: SECRET,
        parseSignature: (value) => ({ signatures: [value], signedPayload }),
      });
    const headers = { "x-sig": mac("sha256", "exact", "hex") };
    expect(make("exact")(BODY, headers)).toBe(true);
    expect(make(Buffer.from("exact"))(BODY, headers)).toBe(true);
    expect(make("other")(BODY, headers)).toBe(false);
  });

  it("stays correct when the parser itself verifies another delivery with the same verifier", () => {
    let nested: boolean | Promise<boolean> | undefined;
    const verifyTwice: ReturnType<typeof createWebhookVerifier> = createWebhookVerifier({
      format: "custom",
      header: "x-sig",
      secret: SECRET,
      parseSignature: (value, { header }) => {
        if (header("x-outer") !== undefined) {
          nested = verifyTwice("inner", { "x-sig": mac("sha256", "inner", "hex") });
        }
        return { signatures: [value] };
      },
    });
    const outer = { "x-sig": mac("sha256", BODY, "hex"), "x-outer": "1" };
    expect(verifyTwice(BODY, outer)).toBe(true);
    expect(nested).toBe(true);
    expect(verifyTwice(BODY, { ...outer, "x-sig": mac("sha256", "inner", "hex") })).toBe(false);
    expect(nested).toBe(true);
  });

  it.each<[string, ParseSignature]>([
    [
      "throws",
      () => {
        throw new Error("boom");
      },
    ],
    ["returns null", () => null],
    ["returns no signatures", () => ({ signatures: [] })],
    ["returns a non-string signature", () => ({ signatures: [42 as never] })],
    ["returns a garbled timestamp", (v) => ({ signatures: [v], timestamp: "soon" })],
    ["returns a bad payload part", (v) => ({ signatures: [v], signedPayload: [{} as never] })],
  ])("returns false when the parser %s", (_name, parse) => {
    const verify = createWebhookVerifier({
      format: "custom",
      header: "x-sig",
      secret: SECRET,
      parseSignature: parse,
      now,
    });
    expect(verify(BODY, { "x-sig": mac("sha256", BODY, "hex") })).toBe(false);
  });
});

describe("createWebhookVerifier — construction", () => {
  it("throws when format custom has no parseSignature", () => {
    expect(() =>
      createWebhookVerifier({ format: "custom", header: "x-sig", secret: SECRET } as never),
    ).toThrow(/parseSignature/);
  });

  it.each<[string, Record<string, unknown>, RegExp]>([
    ["unknown format", { format: "jwt" }, /format/],
    ["missing header", { format: "raw", header: undefined }, /header/],
    ["unknown algorithm", { format: "raw", algorithm: "md5" }, /algorithm/],
    ["unknown encoding", { format: "raw", encoding: "base32" }, /encoding/],
    ["toleranceSeconds on raw", { format: "raw", toleranceSeconds: 5 }, /toleranceSeconds/],
    ["prefix on alpha", { format: "alpha", prefix: "v1=" }, /prefix/],
    ["parseSignature on raw", { format: "raw", parseSignature: () => null }, /parseSignature/],
    ["non-function clock", { format: "alpha", now: 5 }, /now/],
    ["negative tolerance", { format: "alpha", toleranceSeconds: -5 }, /toleranceSeconds/],
    ["empty secret", { format: "raw", secret: "" }, /secret/],
    ["non-string secret", { format: "raw", secret: 12 }, /secret/],
  ])("throws a TypeError for %s", (_name, overrides, message) => {
    const options = { header: "x-sig", secret: SECRET, ...overrides };
    expect(() => createWebhookVerifier(options as never)).toThrow(TypeError);
    expect(() => createWebhookVerifier(options as never)).toThrow(message);
  });

  it("throws without options", () => {
    expect(() => createWebhookVerifier(undefined as never)).toThrow(TypeError);
  });
});
