import { describe, expect, it } from "vitest";
import { extractBearerToken } from "./extract-bearer-token.js";

describe("extractBearerToken", () => {
  it.each([
    ["Bearer abc.def.ghi", "abc.def.ghi"],
    ["bearer abc", "abc"],
    ["BEARER abc", "abc"],
    ["bEaReR abc", "abc"],
    ["Bearer   abc", "abc"],
    ["  Bearer abc  ", "abc"],
    ["Bearer a-b_c~d+e/f==", "a-b_c~d+e/f=="],
  ])("reads %j as %j", (header, token) => {
    expect(extractBearerToken(header)).toBe(token);
  });

  it.each([
    ["missing", undefined],
    ["null", null],
    ["empty", ""],
    ["scheme only", "Bearer"],
    ["scheme and space", "Bearer "],
    ["another scheme", "Basic dXNlcjpwYXNz"],
    ["scheme prefix of a longer word", "Bearerabc"],
    ["no space", "Bearer\tabc"],
    ["two tokens", "Bearer abc def"],
    ["comma-joined repeats", "Bearer abc, Bearer def"],
    ["padding in the middle", "Bearer ab=c"],
    ["a token only", "abc.def.ghi"],
  ])("returns null for %s", (_name, header) => {
    expect(extractBearerToken(header)).toBeNull();
  });

  it("returns null for a repeated header (an array) and for non-strings", () => {
    expect(extractBearerToken(["Bearer abc"])).toBeNull();
    expect(extractBearerToken(42 as never)).toBeNull();
    expect(extractBearerToken({} as never)).toBeNull();
  });
});
