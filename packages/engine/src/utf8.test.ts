import { describe, expect, it } from "vitest";
import { decodeUtf8 } from "./utf8.js";

describe("decodeUtf8", () => {
  it("decodes valid UTF-8, including a view into a larger buffer", () => {
    const bytes = new TextEncoder().encode('xx{"a":"é✓😀"}yy');
    expect(decodeUtf8(bytes)).toBe('xx{"a":"é✓😀"}yy');
    expect(decodeUtf8(bytes.subarray(2, bytes.length - 2))).toBe('{"a":"é✓😀"}');
  });

  it("refuses malformed bytes instead of replacing them", () => {
    expect(decodeUtf8(Uint8Array.of(0x7b, 0xff, 0x7d))).toBeNull();
    expect(decodeUtf8(Uint8Array.of(0xe2, 0x82))).toBeNull(); // truncated sequence
    expect(decodeUtf8(Uint8Array.of(0xed, 0xa0, 0x80))).toBeNull(); // encoded surrogate
  });
});
