import { createHmac } from "node:crypto";
import { sign } from "@octokit/webhooks-methods";
import { describe, expect, it } from "vitest";
import { betaWebhookVerifier } from "./beta-webhook-verifier.js";

const SECRET = "It's a Secret to Everybody";
const BODY = JSON.stringify({ action: "opened", number: 1, sender: { login: "octocat" } });
const H = "x-hub-signature-256";

describe("betaWebhookVerifier", () => {
  const verify = betaWebhookVerifier(SECRET);

  it("accepts GitHub's published test vector", () => {
    // From GitHub's "Validating webhook deliveries" documentation.
    const header = "sha256=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17";
    expect(verify("Hello, World!", { [H]: header })).toBe(true);
  });

  it("accepts a header made by @octokit/webhooks-methods (byte-compatible)", async () => {
    const header = await sign(SECRET, BODY);
    expect(verify(BODY, { [H]: header })).toBe(true);
    expect(verify(Buffer.from(BODY), new Headers({ "X-Hub-Signature-256": header }))).toBe(true);
  });

  it("rejects a tampered body and a wrong secret", async () => {
    expect(verify(`${BODY}\n`, { [H]: await sign(SECRET, BODY) })).toBe(false);
    expect(verify(BODY, { [H]: await sign("another secret", BODY) })).toBe(false);
  });

  it("accepts a delivery signed with any rotated secret", async () => {
    const rotating = betaWebhookVerifier(["new secret", SECRET]);
    expect(rotating(BODY, { [H]: await sign(SECRET, BODY) })).toBe(true);
    expect(rotating(BODY, { [H]: await sign("new secret", BODY) })).toBe(true);
    expect(rotating(BODY, { [H]: await sign("retired", BODY) })).toBe(false);
  });

  it("requires the sha256= prefix and rejects the legacy sha1 header", async () => {
    const hex = (await sign(SECRET, BODY)).slice("sha256=".length);
    expect(verify(BODY, { [H]: hex })).toBe(false);
    expect(verify(BODY, { [H]: `SHA256=${hex}` })).toBe(false);
    const sha1 = `sha1=${createHmac("sha1", SECRET).update(BODY).digest("hex")}`;
    expect(verify(BODY, { "x-hub-signature": sha1 })).toBe(false);
    expect(verify(BODY, { [H]: sha1 })).toBe(false);
  });

  it("accepts an upper-case hex digest (same bytes)", async () => {
    const hex = (await sign(SECRET, BODY)).slice("sha256=".length);
    expect(verify(BODY, { [H]: `sha256=${hex.toUpperCase()}` })).toBe(true);
  });

  it.each([
    ["empty", ""],
    ["prefix only", "sha256="],
    ["two signatures joined", "sha256=aa, sha256=bb"],
    ["not hex", `sha256=${"g".repeat(64)}`],
    ["short", "sha256=abcd"],
  ])("returns false for a garbled header (%s)", (_name, header) => {
    expect(verify(BODY, { [H]: header })).toBe(false);
  });

  it("returns false for a missing or repeated header", async () => {
    const header = await sign(SECRET, BODY);
    expect(verify(BODY, {})).toBe(false);
    expect(verify(BODY, { [H]: [header] })).toBe(false);
    const repeated = new Headers();
    repeated.append(H, header);
    repeated.append(H, header);
    expect(verify(BODY, repeated)).toBe(false);
  });

  it("reads an overridden header name", async () => {
    const custom = betaWebhookVerifier(SECRET, { header: "x-gitea-signature-256" });
    expect(custom(BODY, { "x-gitea-signature-256": await sign(SECRET, BODY) })).toBe(true);
  });

  it("resolves a getter once and memoizes it", async () => {
    let calls = 0;
    const lazy = betaWebhookVerifier(() => {
      calls += 1;
      return SECRET;
    });
    const header = await sign(SECRET, BODY);
    expect(lazy(BODY, { [H]: header })).toBe(true);
    expect(lazy(BODY, { [H]: header })).toBe(true);
    expect(calls).toBe(1);
  });
});
