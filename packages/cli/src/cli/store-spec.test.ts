import { describe, expect, test } from "vitest";
import { openStores, parseStoreSpec, UsageError } from "./store-spec.js";

describe("parseStoreSpec", () => {
  test("memory, fs:<dir> and postgres:<url>", () => {
    expect(parseStoreSpec("memory")).toEqual({ kind: "memory" });
    expect(parseStoreSpec("fs:.data")).toEqual({ kind: "fs", dir: ".data" });
    expect(parseStoreSpec("fs:/var/lib/flowrt")).toEqual({ kind: "fs", dir: "/var/lib/flowrt" });
    const url = "postgres://app:secret@db:5432/flowrt";
    expect(parseStoreSpec(`postgres:${url}`)).toEqual({ kind: "postgres", connectionString: url });
    expect(parseStoreSpec(url)).toEqual({ kind: "postgres", connectionString: url });
  });

  test("?schema= picks the Postgres schema and is kept out of the connection string", () => {
    expect(parseStoreSpec("postgres:postgres://app@db/flowrt?schema=tenant_a&sslmode=require")).toEqual({
      kind: "postgres",
      connectionString: "postgres://app@db/flowrt?sslmode=require",
      schema: "tenant_a",
    });
    expect(() => parseStoreSpec("postgres://db/flowrt?schema=a;drop")).toThrow(UsageError);
  });

  test.each(["", "mem", "fs:", "postgres:", "postgres:localhost", "sqlite:x.db"])("refuses %j", (value) => {
    expect(() => parseStoreSpec(value)).toThrow(UsageError);
  });
});

test("openStores loads the chosen store package", async () => {
  const stores = await openStores({ kind: "memory" });
  expect(stores.kind).toBe("memory");
  await stores.close();
});
