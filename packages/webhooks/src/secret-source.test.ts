import { createHmac } from "node:crypto";
import { inspect } from "node:util";
import { describe, expect, it } from "vitest";
import { createSecretSource, type SecretKeys, type SecretSource } from "./secret-source.js";

const texts = (keys: SecretKeys) => keys.map((key) => key.export().toString("utf8"));
/** Runs a check that passes when `expected` is among the resolved secrets. */
const has = (source: SecretSource, expected: string) =>
  source.run((keys) => texts(keys).includes(expected), undefined, undefined);

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
    expect(has(source, "b")).toBe(true);
    expect(has(source, "c")).toBe(false);
    expect(calls).toBe(1);
  });

  it("does not memoize a throwing getter: false now, retried next time", () => {
    let calls = 0;
    const source = createSecretSource(() => {
      calls += 1;
      if (calls === 1) throw new Error("vault unreachable");
      return "k";
    }, "test");
    expect(has(source, "k")).toBe(false);
    expect(has(source, "k")).toBe(true);
    expect(has(source, "k")).toBe(true);
    expect(calls).toBe(2);
  });

  it("treats a getter result whose then accessor throws as a failure: false, never a throw", () => {
    // biome-ignore lint/suspicious/noThenProperty: a hostile thenable is what this test is about.
    const hostile = Object.defineProperty({}, "then", {
      get() {
        throw new Error("hostile thenable");
      },
    });
    const source = createSecretSource(() => hostile as unknown as string, "test");
    expect(has(source, "k")).toBe(false);
  });

  it.each([[""], [[]], [[""]], [null], [42]])(
    "treats a getter result of %j as a failure and retries",
    (bad) => {
      let calls = 0;
      const source = createSecretSource(() => (++calls === 1 ? (bad as never) : "k"), "test");
      expect(has(source, "k")).toBe(false);
      expect(has(source, "k")).toBe(true);
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
    expect(await has(source, "k")).toBe(false);
    expect(await has(source, "k")).toBe(true);
    expect(await has(source, "k")).toBe(true);
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
    const first = has(source, "k");
    const second = has(source, "x");
    release("k");
    expect(await Promise.all([first, second])).toEqual([true, false]);
    expect(calls).toBe(1);
  });

  it("keeps returning Promises once the getter proved async", async () => {
    const source = createSecretSource(() => Promise.resolve("k"), "test");
    await has(source, "k");
    expect(has(source, "k")).toBeInstanceOf(Promise);
  });

  it("copies a static list, so later mutation does not change the secrets", () => {
    const list = ["a"];
    const source = createSecretSource(list, "test");
    list.push("b");
    expect(has(source, "b")).toBe(false);
    expect(has(source, "a")).toBe(true);
  });

  it("makes one HMAC key per secret holding its UTF-8 bytes, so signatures match createHmac over the text", () => {
    const secrets = ["whsec_plain", "clé-🔑"];
    const source = createSecretSource(secrets, "test");
    const signatures = source.run(
      (keys) => {
        expect(keys).toHaveLength(2);
        return keys.every(
          (key, i) =>
            createHmac("sha256", key).update("body").digest("hex") ===
            createHmac("sha256", secrets[i]!).update("body").digest("hex"),
        );
      },
      undefined,
      undefined,
    );
    expect(signatures).toBe(true);
  });

  it("hands the check the arguments it was given, for static and lazy secrets alike", async () => {
    const seen: unknown[] = [];
    const check = (_keys: SecretKeys, rawBody: unknown, headers: unknown) => {
      seen.push(rawBody, headers);
      return true;
    };
    const headers = { a: "1" };
    expect(createSecretSource("k", "test").run(check, "body", headers)).toBe(true);
    expect(createSecretSource(() => "k", "test").run(check, "lazy", headers)).toBe(true);
    expect(await createSecretSource(async () => "k", "test").run(check, "async", headers)).toBe(true);
    expect(seen).toEqual(["body", headers, "lazy", headers, "async", headers]);
  });

  it("does not reveal the secret when the keys are inspected", () => {
    const source = createSecretSource("whsec_do_not_print", "test");
    source.run(
      (keys) => {
        expect(inspect(keys)).not.toContain("whsec_do_not_print");
        return true;
      },
      undefined,
      undefined,
    );
  });
});
