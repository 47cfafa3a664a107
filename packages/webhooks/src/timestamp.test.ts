import { describe, expect, it } from "vitest";
import { checkClock, isFresh, parseTimestamp } from "./timestamp.js";

describe("parseTimestamp", () => {
  it("reads 1 to 15 plain decimal digits", () => {
    expect(parseTimestamp("0")).toBe(0);
    expect(parseTimestamp("1700000000")).toBe(1_700_000_000);
    expect(parseTimestamp("01700000000")).toBe(1_700_000_000);
    expect(parseTimestamp("999999999999999")).toBe(999_999_999_999_999);
  });

  it.each(["", "1234567890123456", "-1", "+1", "1.5", "1e3", " 1", "1 ", "0x10", "١٢٣", "１２"])(
    "refuses %j",
    (text) => {
      expect(parseTimestamp(text)).toBeUndefined();
    },
  );
});

describe("isFresh", () => {
  const now = () => 1_000_500; // 1000.5 s

  it("accepts up to the tolerance either way, from the whole second of the clock", () => {
    expect(isFresh(1000 - 10, 10, now)).toBe(true);
    expect(isFresh(1000 + 10, 10, now)).toBe(true);
    expect(isFresh(1000 - 11, 10, now)).toBe(false);
    expect(isFresh(1000 + 11, 10, now)).toBe(false);
    expect(isFresh(0, Number.POSITIVE_INFINITY, now)).toBe(true);
  });

  it("refuses when the clock gives no finite number", () => {
    expect(isFresh(1000, 10, () => Number.NaN)).toBe(false);
    expect(isFresh(1000, Number.POSITIVE_INFINITY, () => "soon" as never)).toBe(false);
  });
});

describe("checkClock", () => {
  it("defaults to the current Date.now at each call and refuses a clock that is not a function", () => {
    const clock0 = checkClock(undefined, "t");
    const realNow = Date.now;
    Date.now = () => 42;
    try {
      expect(clock0()).toBe(42);
    } finally {
      Date.now = realNow;
    }
    const clock = () => 5;
    expect(checkClock(clock, "t")).toBe(clock);
    expect(() => checkClock(5, "owner")).toThrow(/owner: now/);
  });
});
