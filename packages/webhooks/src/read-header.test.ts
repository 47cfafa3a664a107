import { describe, expect, it } from "vitest";
import { headerReader, readHeader } from "./read-header.js";

describe("headerReader", () => {
  const read = headerReader("X-Signature");

  it("finds a header whatever the case of the name or the key", () => {
    expect(read({ "x-signature": "a" })).toBe("a");
    expect(read({ "X-SIGNATURE": "a", host: "h" })).toBe("a");
    expect(read(new Headers({ "X-Signature": "a" }))).toBe("a");
  });

  it("answers undefined for a missing, repeated or non-string header", () => {
    expect(read({ host: "h" })).toBeUndefined();
    expect(read({ "x-signature": ["a", "b"] })).toBeUndefined();
    expect(read({ "x-signature": "a", "X-Signature": "a" })).toBeUndefined();
    expect(read({ "x-signature": 5 })).toBeUndefined();
    expect(read({ "x-signature": undefined })).toBeUndefined();
    const repeated = new Headers();
    repeated.append("x-signature", "a");
    repeated.append("x-signature", "b");
    expect(read(repeated)).toBe("a, b"); // joined: the formats' parsers refuse it
  });

  it("answers undefined for headers that are not an object", () => {
    for (const headers of [null, undefined, "x-signature: a", 42]) expect(read(headers)).toBeUndefined();
  });

  it("reads own keys only, as Object.keys would", () => {
    const inherited = Object.create({ "x-signature": "from the prototype" }) as Record<string, string>;
    expect(read(inherited)).toBeUndefined();
    inherited["X-Signature"] = "own";
    expect(read(inherited)).toBe("own");
    const hidden = {};
    Object.defineProperty(hidden, "x-signature", { value: "a", enumerable: false });
    expect(read(hidden)).toBeUndefined();
  });

  it("matches keys that lower-case to the name, as before (the Kelvin sign lower-cases to k)", () => {
    const kelvin = headerReader("x-key");
    expect(kelvin({ "x-\u212aey": "a" })).toBe("a");
    expect(kelvin({ "x-\u212aey": "a", "x-key": "b" })).toBeUndefined();
  });

  it("compares whole lower-cased keys for a non-ASCII name, whose lower case can change length", () => {
    // "İ" lower-cases to "i" and a combining dot: a shorter key can match a longer lower-cased name.
    const dotted = headerReader("x-\u0130d");
    expect("x-\u0130d".toLowerCase()).toHaveLength(5);
    expect(dotted({ "X-\u0130D": "a" })).toBe("a");
    expect(dotted({ "x-i\u0307d": "b" })).toBe("b");
  });

  it("readHeader reads a name given per call", () => {
    expect(readHeader({ "x-ts": "1" }, "X-Ts")).toBe("1");
    expect(readHeader({ "x-ts": ["1"] }, "x-ts")).toBeUndefined();
  });
});
