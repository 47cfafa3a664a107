import { expect, test } from "vitest";
import { storeFromEnvironment } from "./environment.js";

test("--store, then FLOWRT_STORE, then DATABASE_URL, then memory; empty variables count as unset", () => {
  const env = { FLOWRT_STORE: "fs:.data", DATABASE_URL: "postgres://db/app" };
  expect(storeFromEnvironment("memory", env)).toEqual({ kind: "memory" });
  expect(storeFromEnvironment(undefined, env)).toEqual({ kind: "fs", dir: ".data" });
  expect(storeFromEnvironment(undefined, { DATABASE_URL: "postgres://db/app" })).toEqual({
    kind: "postgres",
    connectionString: "postgres://db/app",
  });
  expect(storeFromEnvironment(undefined, { FLOWRT_STORE: "", DATABASE_URL: "" })).toEqual({ kind: "memory" });
});

test("a bad FLOWRT_STORE is named as such, and a password in it is not echoed", () => {
  expect(() => storeFromEnvironment(undefined, { FLOWRT_STORE: "redis://u:pw@h/0" })).toThrow(
    'Unknown FLOWRT_STORE "redis://u:***@h/0": use memory, fs:<dir> or postgres:<url>.',
  );
});
