import { describe, expect, it } from "vitest";
import { parseAlphaSignatureHeader } from "./alpha-signature-header.js";
import { randomText, seededRandom } from "./testing/seeded-random.js";

/** The rule as first written (split, trim, slice); the single-pass parser must agree with it on every input. */
function reference(value: string): { timestamp: string; signatures: string[] } | undefined {
  let timestamp: string | undefined;
  const signatures: string[] = [];
  for (const rawItem of value.split(",")) {
    const item = rawItem.trim();
    const eq = item.indexOf("=");
    if (eq <= 0) return undefined;
    const key = item.slice(0, eq);
    if (key === "t") {
      if (timestamp !== undefined) return undefined;
      timestamp = item.slice(eq + 1);
    } else if (key === "v1") {
      signatures.push(item.slice(eq + 1));
    }
  }
  if (timestamp === undefined || signatures.length === 0) return undefined;
  return { timestamp, signatures };
}

function parse(value: string) {
  const parsed = parseAlphaSignatureHeader(value);
  if (parsed === undefined) return undefined;
  const signatures = [value.slice(parsed.signatureStart, parsed.signatureEnd)];
  const more = parsed.more ?? [];
  for (let i = 0; i < more.length; i += 2) signatures.push(value.slice(more[i], more[i + 1]));
  return { timestamp: parsed.timestamp, signatures };
}

describe("parseAlphaSignatureHeader", () => {
  it("reads the timestamp and every v1 signature, in order, ignoring other keys", () => {
    expect(parse("t=123,v1=aa,v0=bb,v1=cc")).toEqual({ timestamp: "123", signatures: ["aa", "cc"] });
    expect(parse("v1=aa,t=123")).toEqual({ timestamp: "123", signatures: ["aa"] });
    expect(parseAlphaSignatureHeader("t=1,v1=aa")?.more).toBeUndefined();
  });

  it("ignores whitespace around items, Unicode whitespace included, but not inside them", () => {
    expect(parse(" t=123 ,\tv1=aa\u00a0,\u3000v1=bb\ufeff")).toEqual({
      timestamp: "123",
      signatures: ["aa", "bb"],
    });
    expect(parse("t =123,v1=aa")).toBeUndefined(); // "t " is another key, so there is no t
    expect(parse("t= 123,v1=aa")).toEqual({ timestamp: " 123", signatures: ["aa"] });
  });

  it('refuses a header joined from two (Node and Headers join repeated values with ", ")', () => {
    expect(parse("t=1,v1=aa, v1=deadbeef")).toBeUndefined();
    expect(parse("t=1,v1=aa, t=2,v1=bb")).toBeUndefined();
    expect(parse("t=1,v1=aa,v1=bb")).toEqual({ timestamp: "1", signatures: ["aa", "bb"] });
  });

  it.each([
    ["empty", ""],
    ["no t", "v1=aa"],
    ["no v1", "t=1,v0=aa"],
    ["t twice", "t=1,t=1,v1=aa"],
    ["item without =", "t=1,junk,v1=aa"],
    ["empty key", "t=1,=x,v1=aa"],
    ["empty item", "t=1,,v1=aa"],
    ["trailing comma", "t=1,v1=aa,"],
    ["whitespace-only item", "t=1, ,v1=aa"],
  ])("is garbled when %s", (_name, value) => {
    expect(parseAlphaSignatureHeader(value)).toBeUndefined();
  });

  it("agrees with the split-and-trim rule on generated headers", () => {
    const random = seededRandom(7);
    const pick = <T>(list: readonly T[]) => list[Math.floor(random() * list.length)]!;
    const space = ["", "", " ", "\t", "\u00a0", "\u2028", "\ufeff"];
    const keys = ["t", "v1", "v1", "v1", "v0", "", "t ", "x"];
    const values = ["", "1", "12", "aa", " 1", "1 ", "=", "a=b"];
    // Headers built from items (mostly well formed) and from loose characters (mostly garbled).
    const item = () =>
      random() < 0.1 ? pick(["", " ", "junk"]) : `${pick(space)}${pick(keys)}=${pick(values)}${pick(space)}`;
    const loose = ["t", "v", "1", "=", ",", " ", "\u00a0", "a", "t=", "v1=", ",v1="];
    let wellFormed = 0;
    for (let i = 0; i < 5000; i++) {
      const value =
        i % 2 === 0
          ? Array.from({ length: 2 + Math.floor(random() * 3) }, item).join(",")
          : randomText(random, loose, 12);
      // ", " (a header sent twice, joined) is refused whatever the rest; the explicit test above covers it.
      if (value.includes(", ")) {
        expect(parse(value), JSON.stringify(value)).toBeUndefined();
        continue;
      }
      const expected = reference(value);
      if (expected !== undefined) wellFormed += 1;
      expect(parse(value), JSON.stringify(value)).toEqual(expected);
    }
    // The generated headers exercise both outcomes, not only garbled ones.
    expect(wellFormed).toBeGreaterThan(200);
  });
});
