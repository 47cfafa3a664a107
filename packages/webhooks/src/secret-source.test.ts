import { describe, expect, it } from "vitest";
import { createSecretSource } from "./secret-source.js";

const matches = (expected: string) => (secrets: readonly string[]) => secrets.includes(expected);

describe("createSecretSource", () => {
  it("does not call the getter before the first check", () => {
    let calls = 0;
    createSecretSource(() => {
      calls += 1;
      return "k";
    }, "test");
    expect(calls).toBe(0);
  });

  it("memoizes a synchronous getter and stays synchronous", () => {
    let calls = 0;
    const source = createSecretSource(() => {
      calls += 1;
      return ["a", "b"];
    }, "test");
    expect(source(matches("b"))).toBe(true);
    expect(source(matches("c"))).toBe(false);
    expect(calls).toBe(1);
  });

  it("does not memoize a throwing getter: false now, retried next time", () => {
    let calls = 0;
    const source = createSecretSource(() => {
      calls += 1;
      if (calls === 1) throw new Error("vault unreachable");
      return "k";
    }, "test");
    expect(source(matches("k"))).toBe(false);
    expect(source(matches("k"))).toBe(true);
    expect(source(matches("k"))).toBe(true);
    expect(calls).toBe(2);
  });

  it.each([[""], [[]], [[""]], [null], [42]])(
    "treats a getter result of %j as a failure and retries",
    (bad) => {
      let calls = 0;
      const source = createSecretSource(() => (++calls === 1 ? (bad as never) : "k"), "test");
      expect(source(matches("k"))).toBe(false);
      expect(source(matches("k"))).toBe(true);
      expect(calls).toBe(2);
    },
  );

  it("does not memoize a rejected async getter: false now, retried next time", async () => {
    let calls = 0;
    const source = createSecretSource(async () => {
      calls += 1;
      if (calls === 1) throw new Error("vault unreachable");
      return "k";
    }, "test");
    expect(await source(matches("k"))).toBe(false);
    expect(await source(matches("k"))).toBe(true);
    expect(await source(matches("k"))).toBe(true);
    expect(calls).toBe(2);
  });

  it("shares one pending call between concurrent checks", async () => {
    let calls = 0;
    let release: (value: string) => void = () => {};
    const source = createSecretSource(() => {
      calls += 1;
      return new Promise<string>((resolve) => {
        release = resolve;
      });
    }, "test");
    const first = source(matches("k"));
    const second = source(matches("x"));
    release("k");
    expect(await Promise.all([first, second])).toEqual([true, false]);
    expect(calls).toBe(1);
  });

  it("keeps returning Promises once the getter proved async", async () => {
    const source = createSecretSource(() => Promise.resolve("k"), "test");
    await source(matches("k"));
    expect(source(matches("k"))).toBeInstanceOf(Promise);
  });

  it("copies a static list, so later mutation does not change the secrets", () => {
    const list = ["a"];
    const source = createSecretSource(list, "test");
    list.push("b");
    expect(source(matches("b"))).toBe(false);
    expect(source(matches("a"))).toBe(true);
  });
});
