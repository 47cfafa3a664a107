import { describe, expect, it } from "vitest";
import { decodeKey, encodeKey, isCountedPrefix, prefixRange } from "./key-codec.js";

const compareBytes = (a: Buffer, b: Buffer) => Buffer.compare(a, b);

describe("key codec", () => {
  it("round-trips any JavaScript string, NUL and lone surrogates included", () => {
    for (const key of ["", "a", "notes/ä", "😀", "\ud800", "a\u0000b", "\uffff\udfff"]) {
      expect(decodeKey(encodeKey(key))).toBe(key);
    }
  });

  it("byte order of encoded keys is JavaScript's string order", () => {
    const keys = ["k/\uFFFD", "k/\u{1F600}", "k/\uE000", "k/z", "k", "k/", "K", "é", "\u0000", ""];
    const byBytes = [...keys].sort((a, b) => compareBytes(encodeKey(a), encodeKey(b)));
    expect(byBytes).toEqual([...keys].sort());
  });

  it("a prefix range holds exactly the keys starting with the prefix", () => {
    const keys = [
      "p",
      "pa",
      "p\uffff",
      "p\uffffa",
      "p\u00ff",
      "p\u0100",
      "q",
      "o\uffff",
      "\uffff",
      "\uffff\uffff",
    ];
    for (const prefix of ["", "p", "p\uffff", "p\u00ff", "\uffff", "o"]) {
      const { low, high } = prefixRange(prefix);
      const inRange = keys.filter((key) => {
        const bytes = encodeKey(key);
        return compareBytes(bytes, low) >= 0 && (high === null || compareBytes(bytes, high) < 0);
      });
      expect(inRange.sort()).toEqual(keys.filter((key) => key.startsWith(prefix)).sort());
    }
    expect(prefixRange("").high).toBeNull();
    expect(prefixRange("\uffff\uffff").high).toBeNull();
  });

  it("counters exist for the empty prefix and prefixes ending in a slash", () => {
    expect([
      isCountedPrefix(""),
      isCountedPrefix("a/"),
      isCountedPrefix("a"),
      isCountedPrefix("a/b"),
    ]).toEqual([true, true, false, false]);
  });
});
