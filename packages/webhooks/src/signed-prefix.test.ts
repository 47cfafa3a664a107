import { describe, expect, it } from "vitest";
import { signedPrefix } from "./signed-prefix.js";
import { randomText, seededRandom } from "./testing/seeded-random.js";

const utf8 = (text: string) => [...Buffer.from(text, "utf8")];

describe("signedPrefix", () => {
  it("writes the UTF-8 bytes of <head><timestamp><tail> for every timestamp length", () => {
    const alpha = signedPrefix("", ".");
    const gamma = signedPrefix("v0:", ":");
    for (let digits = 0; digits <= 17; digits++) {
      const timestamp = "1234567890123456789".slice(0, digits);
      expect([...alpha(timestamp)]).toEqual(utf8(`${timestamp}.`));
      expect([...gamma(timestamp)]).toEqual(utf8(`v0:${timestamp}:`));
    }
  });

  it("keeps the literal text (leading zeros are signed as sent)", () => {
    expect([...signedPrefix("", ".")("0001700000000")]).toEqual(utf8("0001700000000."));
  });

  it("answers the bytes of the text for any text, ASCII or not", () => {
    const write = signedPrefix("v0:", ":");
    const random = seededRandom(11);
    const alphabet = ["0", "9", "a", " ", ",", "é", "١", "🚀", "\u0000", "\u007f", "\u0080"];
    for (let i = 0; i < 2000; i++) {
      const timestamp = randomText(random, alphabet, 20);
      expect([...write(timestamp)]).toEqual(utf8(`v0:${timestamp}:`));
    }
  });

  it("a shorter timestamp after a longer one leaves no stale byte in the answer", () => {
    const write = signedPrefix("", ".");
    write("999999999999999");
    expect([...write("42")]).toEqual(utf8("42."));
  });

  it("refuses a head or tail that is not ASCII", () => {
    expect(() => signedPrefix("é", ".")).toThrow(TypeError);
    expect(() => signedPrefix("", "…")).toThrow(TypeError);
  });
});
