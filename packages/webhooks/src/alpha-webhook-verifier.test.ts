import { createHmac } from "node:crypto";
import Stripe from "stripe";
import { afterEach, describe, expect, it, vi } from "vitest";
import { alphaWebhookVerifier } from "./alpha-webhook-verifier.js";

const SECRET = "whsec_test_secret";
const BODY = JSON.stringify({ id: "evt_1", object: "event", type: "payment_intent.succeeded" });
const NOW_S = 1_700_000_000;
const now = () => NOW_S * 1000;

function sign(secret: string, timestamp: number | string, body: string | Uint8Array = BODY): string {
  return createHmac("sha256", secret).update(`${timestamp}.`).update(body).digest("hex");
}

function stripeHeader(options: { secret?: string; timestamp?: number; payload?: string } = {}): string {
  return Stripe.webhooks.generateTestHeaderString({
    payload: options.payload ?? BODY,
    secret: options.secret ?? SECRET,
    timestamp: options.timestamp ?? NOW_S,
  });
}

describe("alphaWebhookVerifier", () => {
  const verify = alphaWebhookVerifier(SECRET, { now });

  it("accepts a header made by Stripe's own library (byte-compatible)", () => {
    expect(verify(BODY, { "stripe-signature": stripeHeader() })).toBe(true);
    expect(verify(Buffer.from(BODY), { "stripe-signature": stripeHeader() })).toBe(true);
    expect(verify(new TextEncoder().encode(BODY), new Headers({ "Stripe-Signature": stripeHeader() }))).toBe(
      true,
    );
  });

  it("accepts a Stripe-signed non-ASCII body given as bytes", () => {
    const payload = JSON.stringify({ id: "evt_2", name: "Zoë 🚀" });
    const header = stripeHeader({ payload });
    expect(verify(Buffer.from(payload, "utf8"), { "stripe-signature": header })).toBe(true);
  });

  it("rejects a tampered body", () => {
    expect(verify(BODY.replace("succeeded", "failed"), { "stripe-signature": stripeHeader() })).toBe(false);
    expect(verify(`${BODY} `, { "stripe-signature": stripeHeader() })).toBe(false);
  });

  it("rejects a signature made with another secret", () => {
    expect(verify(BODY, { "stripe-signature": stripeHeader({ secret: "whsec_other" }) })).toBe(false);
  });

  it("rejects a tampered timestamp (the timestamp is signed)", () => {
    const header = `t=${NOW_S + 1},v1=${sign(SECRET, NOW_S)}`;
    expect(verify(BODY, { "stripe-signature": header })).toBe(false);
  });

  it("accepts timestamps up to the window on either side and rejects beyond it", () => {
    const at = (timestamp: number) => verify(BODY, { "stripe-signature": stripeHeader({ timestamp }) });
    expect(at(NOW_S - 300)).toBe(true);
    expect(at(NOW_S + 300)).toBe(true);
    expect(at(NOW_S - 301)).toBe(false);
    expect(at(NOW_S + 301)).toBe(false);
  });

  it("signs the literal timestamp text, whatever its length, delivery after delivery", () => {
    const anyTime = alphaWebhookVerifier(SECRET, { now, toleranceSeconds: Number.POSITIVE_INFINITY });
    const at = (timestamp: string, signedAs = timestamp) =>
      anyTime(BODY, { "stripe-signature": `t=${timestamp},v1=${sign(SECRET, signedAs)}` });
    expect(at("000000001700000000")).toBe(false); // 18 digits: not a timestamp
    for (const timestamp of ["1700000000", "7", "000001700000000", "42", "0"])
      expect(at(timestamp)).toBe(true);
    expect(at("01700000000", "1700000000")).toBe(false);
    expect(at("1700000000", "01700000000")).toBe(false);
  });

  it("refuses a signature spelled with a non-ASCII character whose low byte is a hex digit", () => {
    const hex = sign(SECRET, NOW_S);
    // U+0130 "İ" for "0", U+0161 "š" for "a": Node's hex decoder reads only a character's low byte.
    const lookalike = String.fromCharCode(0x100 + hex.charCodeAt(0)) + hex.slice(1);
    expect(verify(BODY, { "stripe-signature": `t=${NOW_S},v1=${hex}` })).toBe(true);
    expect(verify(BODY, { "stripe-signature": `t=${NOW_S},v1=${lookalike}` })).toBe(false);
  });

  it("honours a custom window and Infinity", () => {
    const strict = alphaWebhookVerifier(SECRET, { now, toleranceSeconds: 10 });
    expect(strict(BODY, { "stripe-signature": stripeHeader({ timestamp: NOW_S - 10 }) })).toBe(true);
    expect(strict(BODY, { "stripe-signature": stripeHeader({ timestamp: NOW_S - 11 }) })).toBe(false);
    const open = alphaWebhookVerifier(SECRET, { now, toleranceSeconds: Number.POSITIVE_INFINITY });
    expect(open(BODY, { "stripe-signature": stripeHeader({ timestamp: 1 }) })).toBe(true);
  });

  it("uses the real clock by default", () => {
    const live = alphaWebhookVerifier(SECRET);
    const fresh = stripeHeader({ timestamp: Math.floor(Date.now() / 1000) });
    expect(live(BODY, { "stripe-signature": fresh })).toBe(true);
    expect(live(BODY, { "stripe-signature": stripeHeader() })).toBe(false);
  });

  it("accepts when any of several v1 signatures matches, and ignores other schemes", () => {
    const good = sign(SECRET, NOW_S);
    const bad = sign("whsec_old", NOW_S);
    expect(verify(BODY, { "stripe-signature": `t=${NOW_S},v1=${bad},v1=${good}` })).toBe(true);
    expect(verify(BODY, { "stripe-signature": `t=${NOW_S},v1=${good},v1=${bad},v0=${bad}` })).toBe(true);
    expect(verify(BODY, { "stripe-signature": `t=${NOW_S},v1=${bad},v0=${good}` })).toBe(false);
  });

  it("still matches when another v1 has the wrong length (the length guard skips it, no throw)", () => {
    const good = sign(SECRET, NOW_S);
    expect(verify(BODY, { "stripe-signature": `t=${NOW_S},v1=abcd,v1=${good}` })).toBe(true);
    expect(verify(BODY, { "stripe-signature": `t=${NOW_S},v1=${good}00,v1=${good}` })).toBe(true);
  });

  it("accepts a delivery signed with any rotated secret", () => {
    const rotating = alphaWebhookVerifier(["whsec_new", SECRET], { now });
    expect(rotating(BODY, { "stripe-signature": stripeHeader() })).toBe(true);
    expect(rotating(BODY, { "stripe-signature": stripeHeader({ secret: "whsec_new" }) })).toBe(true);
    expect(rotating(BODY, { "stripe-signature": stripeHeader({ secret: "whsec_gone" }) })).toBe(false);
  });

  it("returns false for a missing or repeated header", () => {
    expect(verify(BODY, {})).toBe(false);
    expect(verify(BODY, { "stripe-signature": undefined })).toBe(false);
    expect(verify(BODY, { "stripe-signature": [stripeHeader(), stripeHeader()] })).toBe(false);
    expect(verify(BODY, { "stripe-signature": stripeHeader(), "Stripe-Signature": stripeHeader() })).toBe(
      false,
    );
    const repeated = new Headers();
    repeated.append("stripe-signature", stripeHeader());
    repeated.append("stripe-signature", stripeHeader());
    expect(verify(BODY, repeated)).toBe(false);
    // A valid header followed by a forged one, joined as Node's http server and Headers join them.
    const joined = new Headers();
    joined.append("stripe-signature", stripeHeader());
    joined.append("stripe-signature", "v1=deadbeef");
    expect(verify(BODY, joined)).toBe(false);
    expect(verify(BODY, { "stripe-signature": `${stripeHeader()}, v1=deadbeef` })).toBe(false);
  });

  it.each([
    ["empty", ""],
    ["no timestamp", `v1=${sign(SECRET, NOW_S)}`],
    ["no v1", `t=${NOW_S}`],
    ["two timestamps", `t=${NOW_S},t=${NOW_S},v1=${sign(SECRET, NOW_S)}`],
    ["item without =", `t=${NOW_S},garbage,v1=${sign(SECRET, NOW_S)}`],
    ["non-digit timestamp", `t=${NOW_S}.0,v1=${sign(SECRET, `${NOW_S}.0`)}`],
    ["negative timestamp", `t=-${NOW_S},v1=${sign(SECRET, `-${NOW_S}`)}`],
    ["non-hex signature", `t=${NOW_S},v1=${"z".repeat(64)}`],
    ["truncated signature", `t=${NOW_S},v1=${sign(SECRET, NOW_S).slice(0, 62)}`],
    ["odd-length signature", `t=${NOW_S},v1=${sign(SECRET, NOW_S).slice(0, 63)}`],
    ["signature with trailing junk", `t=${NOW_S},v1=${sign(SECRET, NOW_S)}zz`],
  ])("returns false for a garbled header (%s)", (_name, header) => {
    expect(verify(BODY, { "stripe-signature": header })).toBe(false);
  });

  it("returns false, never throws, for inputs that are not a delivery", () => {
    const header = { "stripe-signature": stripeHeader() };
    expect(verify(42 as never, header)).toBe(false);
    expect(verify(null as never, header)).toBe(false);
    expect(verify(BODY, null as never)).toBe(false);
    expect(verify(BODY, { "stripe-signature": 7 } as never)).toBe(false);
    const broken = alphaWebhookVerifier(SECRET, { now: () => Number.NaN });
    expect(broken(BODY, header)).toBe(false);
  });

  it("reads an overridden header name", () => {
    const custom = alphaWebhookVerifier(SECRET, { now, header: "x-acme-signature" });
    expect(custom(BODY, { "x-acme-signature": stripeHeader() })).toBe(true);
    expect(custom(BODY, { "stripe-signature": stripeHeader() })).toBe(false);
  });

  it("resolves a getter once and memoizes it", () => {
    let calls = 0;
    const lazy = alphaWebhookVerifier(
      () => {
        calls += 1;
        return SECRET;
      },
      { now },
    );
    expect(calls).toBe(0);
    expect(lazy(BODY, { "stripe-signature": stripeHeader() })).toBe(true);
    expect(lazy(BODY, { "stripe-signature": stripeHeader({ secret: "whsec_x" }) })).toBe(false);
    expect(lazy(BODY, { "stripe-signature": stripeHeader() })).toBe(true);
    expect(calls).toBe(1);
  });

  it("resolves an async getter once; verify then returns a Promise", async () => {
    let calls = 0;
    const lazy = alphaWebhookVerifier(
      async () => {
        calls += 1;
        return [SECRET];
      },
      { now },
    );
    const first = lazy(BODY, { "stripe-signature": stripeHeader() });
    const concurrent = lazy(BODY, { "stripe-signature": stripeHeader() });
    expect(first).toBeInstanceOf(Promise);
    expect(await first).toBe(true);
    expect(await concurrent).toBe(true);
    const later = lazy(BODY, { "stripe-signature": stripeHeader() });
    expect(later).toBeInstanceOf(Promise);
    expect(await later).toBe(true);
    expect(await lazy("tampered", { "stripe-signature": stripeHeader() })).toBe(false);
    expect(calls).toBe(1);
  });

  it("rejects invalid options at construction", () => {
    expect(() => alphaWebhookVerifier("")).toThrow(TypeError);
    expect(() => alphaWebhookVerifier([])).toThrow(TypeError);
    expect(() => alphaWebhookVerifier(["ok", ""])).toThrow(TypeError);
    expect(() => alphaWebhookVerifier(SECRET, { toleranceSeconds: -1 })).toThrow(/toleranceSeconds/);
    expect(() => alphaWebhookVerifier(SECRET, { toleranceSeconds: Number.NaN })).toThrow(/toleranceSeconds/);
    expect(() => alphaWebhookVerifier(SECRET, { header: "" })).toThrow(/header/);
  });

  it("never puts the secret in an error message", () => {
    expect(() => alphaWebhookVerifier([SECRET, ""])).toThrow(
      expect.objectContaining({ message: expect.not.stringContaining(SECRET) }),
    );
  });
});

describe("alphaWebhookVerifier without a clock of its own", () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it("reads the current time at each verification, so fake timers set after it was built apply", () => {
    const verify = alphaWebhookVerifier(SECRET);
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(NOW_S * 1000);
    expect(verify(BODY, { "stripe-signature": stripeHeader() })).toBe(true);
    vi.setSystemTime((NOW_S + 301) * 1000);
    expect(verify(BODY, { "stripe-signature": stripeHeader() })).toBe(false);
  });
});
