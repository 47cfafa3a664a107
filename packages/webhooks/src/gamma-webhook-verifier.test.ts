import { createHmac } from "node:crypto";
import { isValidSlackRequest } from "@slack/bolt";
import { afterEach, describe, expect, it, vi } from "vitest";
import { gammaWebhookVerifier } from "./gamma-webhook-verifier.js";

// Slack's documented example ("Verifying requests from Slack"): secret, timestamp, body and signature.
const DOC = {
  secret: "8f742231b10e8888abcd99yyyzzz85a5",
  timestamp: 1531420618,
  body:
    "token=xyzz0WbapA4vBCDEFasx0q6G&team_id=T1DC2JH3J&team_domain=testteamnow&channel_id=G8PSS9T3V" +
    "&channel_name=foobar&user_id=U2CERLKJA&user_name=roadrunner&command=%2Fwebhook-collect&text=" +
    "&response_url=https%3A%2F%2Fhooks.slack.com%2Fcommands%2FT1DC2JH3J%2F397700885554%2F96rGlfmibIGlgcZRskXaIFfN" +
    "&trigger_id=398738663015.47445629121.803a0bc887a14d10d2c447fce8b6703c",
  signature: "v0=a2114d57b48eac39b9ad189dd8316235a7b4a8d21a10bd27519666489c69b503",
};

const SECRET = "slack_signing_secret";
const BODY = JSON.stringify({ type: "event_callback", event: { type: "app_mention", text: "héllo" } });
const NOW_S = 1_700_000_000;
const now = () => NOW_S * 1000;

/** Slack's documented recipe: `v0=` + hex HMAC-SHA256 of `v0:<timestamp>:<body>`. */
function slackSign(secret: string, timestamp: number | string, body: string = BODY): string {
  return `v0=${createHmac("sha256", secret).update(`v0:${timestamp}:${body}`).digest("hex")}`;
}

function headers(signature: string, timestamp: number | string = NOW_S) {
  return { "x-slack-signature": signature, "x-slack-request-timestamp": String(timestamp) };
}

describe("gammaWebhookVerifier", () => {
  const verify = gammaWebhookVerifier(SECRET, { now });

  it("accepts Slack's documented example, which Bolt's verifier also accepts", () => {
    const docNow = () => DOC.timestamp * 1000;
    const boltHeaders = { "x-slack-signature": DOC.signature, "x-slack-request-timestamp": DOC.timestamp };
    expect(
      isValidSlackRequest({
        signingSecret: DOC.secret,
        body: DOC.body,
        headers: boltHeaders,
        nowMilliseconds: docNow(),
      }),
    ).toBe(true);
    const ours = gammaWebhookVerifier(DOC.secret, { now: docNow });
    expect(ours(DOC.body, headers(DOC.signature, DOC.timestamp))).toBe(true);
  });

  it("agrees with Bolt's verifier on signatures made by the documented recipe", () => {
    const cases = [
      [SECRET, BODY],
      [SECRET, "payload=%7B%22type%22%3A%22block_actions%22%7D"],
      ["other", BODY],
    ] as const;
    const results = cases.map(([secret, body]) => {
      const signature = slackSign(secret, NOW_S, body);
      const bolt = isValidSlackRequest({
        signingSecret: SECRET,
        body,
        headers: { "x-slack-signature": signature, "x-slack-request-timestamp": NOW_S },
        nowMilliseconds: NOW_S * 1000,
      });
      return [bolt, verify(body, headers(signature))];
    });
    expect(results).toEqual([
      [true, true],
      [true, true],
      [false, false],
    ]);
  });

  it("rejects a tampered body, a wrong secret and a tampered timestamp", () => {
    expect(verify(`${BODY} `, headers(slackSign(SECRET, NOW_S)))).toBe(false);
    expect(verify(BODY, headers(slackSign("wrong", NOW_S)))).toBe(false);
    expect(verify(BODY, headers(slackSign(SECRET, NOW_S), NOW_S - 1))).toBe(false);
  });

  it("signs the literal timestamp header text", () => {
    const padded = "0" + String(NOW_S);
    expect(verify(BODY, headers(slackSign(SECRET, padded), padded))).toBe(true);
    expect(verify(BODY, headers(slackSign(SECRET, NOW_S), padded))).toBe(false);
  });

  it("accepts timestamps up to the window on either side and rejects beyond it", () => {
    const at = (t: number) => verify(BODY, headers(slackSign(SECRET, t), t));
    expect(at(NOW_S - 300)).toBe(true);
    expect(at(NOW_S + 300)).toBe(true);
    expect(at(NOW_S - 301)).toBe(false);
    expect(at(NOW_S + 301)).toBe(false);
    const strict = gammaWebhookVerifier(SECRET, { now, toleranceSeconds: 5 });
    expect(strict(BODY, headers(slackSign(SECRET, NOW_S - 6), NOW_S - 6))).toBe(false);
  });

  it("accepts a delivery signed with any rotated secret", () => {
    const rotating = gammaWebhookVerifier([SECRET, "next"], { now });
    expect(rotating(BODY, headers(slackSign("next", NOW_S)))).toBe(true);
    expect(rotating(BODY, headers(slackSign(SECRET, NOW_S)))).toBe(true);
    expect(rotating(BODY, headers(slackSign("old", NOW_S)))).toBe(false);
  });

  it("returns false when either header is missing or repeated", () => {
    const signature = slackSign(SECRET, NOW_S);
    expect(verify(BODY, { "x-slack-signature": signature })).toBe(false);
    expect(verify(BODY, { "x-slack-request-timestamp": String(NOW_S) })).toBe(false);
    expect(verify(BODY, { ...headers(signature), "x-slack-request-timestamp": [String(NOW_S)] })).toBe(false);
    const repeated = new Headers(headers(signature));
    repeated.append("x-slack-request-timestamp", String(NOW_S));
    expect(verify(BODY, repeated)).toBe(false);
    expect(verify(BODY, new Headers(headers(signature)))).toBe(true);
  });

  it.each([
    ["unknown version", (s: string) => s.replace("v0=", "v1=")],
    ["no version", (s: string) => s.slice(3)],
    ["not hex", () => `v0=${"x".repeat(64)}`],
    ["two signatures", (s: string) => `${s},${s}`],
  ])("returns false for a garbled signature header (%s)", (_name, mangle) => {
    expect(verify(BODY, headers(mangle(slackSign(SECRET, NOW_S))))).toBe(false);
  });

  it.each(["", "abc", `${NOW_S}.5`, `-${NOW_S}`, ` ${NOW_S}`, `${NOW_S}, ${NOW_S}`])(
    "returns false for a garbled timestamp header (%j)",
    (timestamp) => {
      expect(verify(BODY, headers(slackSign(SECRET, timestamp), timestamp))).toBe(false);
    },
  );

  it("reads overridden header names", () => {
    const custom = gammaWebhookVerifier(SECRET, { now, signatureHeader: "x-sig", timestampHeader: "x-ts" });
    expect(custom(BODY, { "x-sig": slackSign(SECRET, NOW_S), "x-ts": String(NOW_S) })).toBe(true);
    expect(custom(BODY, headers(slackSign(SECRET, NOW_S)))).toBe(false);
    expect(() => gammaWebhookVerifier(SECRET, { timestampHeader: "" })).toThrow(TypeError);
  });

  it("resolves an async getter once and memoizes it", async () => {
    let calls = 0;
    const lazy = gammaWebhookVerifier(
      () => {
        calls += 1;
        return Promise.resolve(SECRET);
      },
      { now },
    );
    expect(await lazy(BODY, headers(slackSign(SECRET, NOW_S)))).toBe(true);
    expect(await lazy(BODY, headers(slackSign("wrong", NOW_S)))).toBe(false);
    expect(calls).toBe(1);
  });

  it("rejects invalid options at construction, naming itself and never the secret", () => {
    expect(() => gammaWebhookVerifier(SECRET, { signatureHeader: "" })).toThrow(
      /gammaWebhookVerifier: signatureHeader/,
    );
    expect(() => gammaWebhookVerifier(SECRET, { toleranceSeconds: -1 })).toThrow(/toleranceSeconds/);
    expect(() => gammaWebhookVerifier(SECRET, { now: 5 as never })).toThrow(/now/);
    expect(() => gammaWebhookVerifier([SECRET, ""])).toThrow(/^gammaWebhookVerifier: secret/);
    expect(() => gammaWebhookVerifier([SECRET, ""])).toThrow(
      expect.objectContaining({ message: expect.not.stringContaining(SECRET) }),
    );
  });

  it("returns false, never throws, for inputs that are not a delivery", () => {
    const good = headers(slackSign(SECRET, NOW_S));
    expect(verify(42 as never, good)).toBe(false);
    expect(verify(BODY, null as never)).toBe(false);
    expect(verify(BODY, { ...good, "x-slack-signature": 7 } as never)).toBe(false);
    expect(gammaWebhookVerifier(SECRET, { now: () => Number.NaN })(BODY, good)).toBe(false);
    expect(verify(new TextEncoder().encode(BODY).buffer, good)).toBe(true);
  });
});

describe("gammaWebhookVerifier without a clock of its own", () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it("reads the current time at each verification, so fake timers set after it was built apply", () => {
    const verify = gammaWebhookVerifier(SECRET);
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(NOW_S * 1000);
    expect(verify(BODY, headers(slackSign(SECRET, NOW_S)))).toBe(true);
    vi.setSystemTime((NOW_S - 301) * 1000);
    expect(verify(BODY, headers(slackSign(SECRET, NOW_S)))).toBe(false);
  });
});
