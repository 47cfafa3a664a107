import { createHmac, timingSafeEqual } from "node:crypto";
import { describe, expect, it } from "vitest";
import { createSignatureMatcher } from "./signature-matcher.js";
import { seededRandom } from "./testing/seeded-random.js";
import type { WebhookAlgorithm, WebhookEncoding } from "./types.js";

const CASES: [WebhookAlgorithm, WebhookEncoding][] = [
  ["sha256", "hex"],
  ["sha1", "hex"],
  ["sha512", "hex"],
  ["sha256", "base64"],
  ["sha1", "base64"],
  ["sha512", "base64"],
  ["sha256", "base64url"],
  ["sha1", "base64url"],
  ["sha512", "base64url"],
];

const digest = (algorithm: WebhookAlgorithm, data = "payload") =>
  createHmac(algorithm, "k").update(data).digest();

/** The rule as first written: validate the text with a regex, decode, round-trip base64, compare if same length. */
function reference(expected: Uint8Array, candidate: string, encoding: WebhookEncoding): boolean {
  let given: Buffer | undefined;
  if (encoding === "hex") {
    given = /^(?:[0-9a-fA-F]{2})+$/.test(candidate) ? Buffer.from(candidate, "hex") : undefined;
  } else if ((encoding === "base64" ? /^[A-Za-z0-9+/]+={0,2}$/ : /^[A-Za-z0-9_-]+={0,2}$/).test(candidate)) {
    const bytes = Buffer.from(candidate, encoding);
    if (bytes.toString(encoding).replace(/=+$/, "") === candidate.replace(/=+$/, "")) given = bytes;
  }
  return given !== undefined && given.length === expected.length && timingSafeEqual(given, expected);
}

describe("createSignatureMatcher", () => {
  it.each(CASES)("accepts the %s digest written in %s, and only that digest", (algorithm, encoding) => {
    const matches = createSignatureMatcher(algorithm, encoding);
    const expected = digest(algorithm);
    expect(matches(expected, expected.toString(encoding))).toBe(true);
    expect(matches(expected, digest(algorithm, "other").toString(encoding))).toBe(false);
  });

  it("accepts upper-case hex (the same bytes)", () => {
    const expected = digest("sha256");
    expect(createSignatureMatcher("sha256", "hex")(expected, expected.toString("hex").toUpperCase())).toBe(
      true,
    );
  });

  it.each(["sha1", "sha256", "sha512"] as const)(
    "accepts %s base64 with or without its padding",
    (algorithm) => {
      const expected = digest(algorithm);
      const padded = expected.toString("base64");
      const unpadded = padded.replace(/=+$/, "");
      expect(createSignatureMatcher(algorithm, "base64")(expected, unpadded)).toBe(true);
      expect(createSignatureMatcher(algorithm, "base64")(expected, padded)).toBe(true);
      expect(createSignatureMatcher(algorithm, "base64url")(expected, expected.toString("base64url"))).toBe(
        true,
      );
    },
  );

  it.each(CASES)(
    "rejects a %s/%s candidate whose last character is bad, after a good one filled its buffer",
    (algorithm, encoding) => {
      const matches = createSignatureMatcher(algorithm, encoding);
      const expected = digest(algorithm);
      const good = expected.toString(encoding).replace(/=+$/, "");
      expect(matches(expected, good)).toBe(true);
      // The buffer now holds the right bytes; a candidate that stops decoding early must not reuse them.
      for (const bad of ["!", " ", "=", "é"]) {
        expect(matches(expected, `${good.slice(0, -1)}${bad}`)).toBe(false);
      }
      expect(matches(expected, good.slice(0, -1))).toBe(false);
    },
  );

  it.each(CASES)("reads a %s/%s candidate in place, between start and end only", (algorithm, encoding) => {
    const matches = createSignatureMatcher(algorithm, encoding);
    const expected = digest(algorithm);
    const spelled = expected.toString(encoding);
    // Characters of the candidate's own alphabet on both sides, so that reading past either end would decode.
    const text = `AAAA${spelled}AAAA`;
    const end = 4 + spelled.length;
    expect(matches(expected, text, 4, end)).toBe(true);
    expect(matches(expected, text, 3, end)).toBe(false);
    expect(matches(expected, text, 4, end + 1)).toBe(false);
    expect(matches(expected, text, 5, end + 1)).toBe(false);
    expect(matches(expected, text)).toBe(false);
    expect(matches(expected, `${text}`.slice(4, end))).toBe(true);
  });

  it("rejects a hex signature with any non-hex character in place of a 0 digit, at every position", () => {
    const matches = createSignatureMatcher("sha256", "hex");
    const expected = Buffer.alloc(32); // all "0" digits: a character read as 0 would decode to the same bytes
    const zeros = expected.toString("hex");
    expect(matches(expected, zeros)).toBe(true);
    for (const bad of ["\u00b0", "\u0130", "\uff10", "\u0660", "g", "x", " ", "\u0000"]) {
      for (let at = 0; at < zeros.length; at++) {
        expect(
          matches(expected, `${zeros.slice(0, at)}${bad}${zeros.slice(at + 1)}`),
          `${bad} at ${at}`,
        ).toBe(false);
      }
    }
  });

  it("rejects the other base64 alphabet and non-zero padding bits (same bytes, another spelling)", () => {
    const expected = digest("sha256");
    const base64 = expected.toString("base64").replace(/=+$/, "");
    const url = expected.toString("base64url");
    expect(base64).not.toBe(url); // this digest has a + or / in it
    expect(createSignatureMatcher("sha256", "base64")(expected, url)).toBe(false);
    expect(createSignatureMatcher("sha256", "base64url")(expected, base64)).toBe(false);
    const last = base64.charCodeAt(base64.length - 1);
    const tweaked = base64.slice(0, -1) + String.fromCharCode(last + 1);
    expect(Buffer.from(tweaked, "base64").equals(expected)).toBe(true);
    expect(createSignatureMatcher("sha256", "base64")(expected, tweaked)).toBe(false);
  });

  it.each(CASES)(
    "agrees with the regex-and-round-trip rule on mutated %s/%s candidates",
    (algorithm, encoding) => {
      const random = seededRandom(algorithm.length * 31 + encoding.length);
      const matches = createSignatureMatcher(algorithm, encoding);
      const characters = "0123456789abcdefABCDEFgzZ+/-_= \t!é";
      let accepted = 0;
      for (let i = 0; i < 1500; i++) {
        const expected = digest(algorithm, String(i % 7));
        let candidate = expected.toString(encoding);
        if (random() < 0.5) candidate = candidate.toUpperCase();
        const edits = Math.floor(random() * 3);
        for (let e = 0; e < edits; e++) {
          const at = Math.floor(random() * (candidate.length + 1));
          const char = characters[Math.floor(random() * characters.length)]!;
          const kind = random();
          if (kind < 0.4) candidate = candidate.slice(0, at) + char + candidate.slice(at + 1);
          else if (kind < 0.7) candidate = candidate.slice(0, at) + char + candidate.slice(at);
          else candidate = candidate.slice(0, at) + candidate.slice(at + 1);
        }
        const answer = matches(expected, candidate);
        if (answer) accepted += 1;
        expect(answer, `${candidate} (${encoding})`).toBe(reference(expected, candidate, encoding));
      }
      expect(accepted).toBeGreaterThan(100);
    },
  );
});
