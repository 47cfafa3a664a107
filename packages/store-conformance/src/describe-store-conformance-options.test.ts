import { describe, expect, it } from "vitest";
import { CONFORMANCE_CASES, describeStoreConformance } from "./describe-store-conformance.js";
import { createNaiveStores } from "./testing/naive-stores.js";

describe("describeStoreConformance options", () => {
  it("lists every case once, with a stable group/name form", () => {
    expect(new Set(CONFORMANCE_CASES).size).toBe(CONFORMANCE_CASES.length);
    for (const name of CONFORMANCE_CASES) expect(name).toMatch(/^[a-z-]+\/[a-z-]+$/);
    expect(CONFORMANCE_CASES).toContain("concurrency/cas-increments");
  });

  it("refuses a skip of an unknown case", () => {
    expect(() =>
      describeStoreConformance({
        name: "typo",
        create: createNaiveStores,
        skip: { "resources/tombstones": "typo" } as never,
      }),
    ).toThrow(/unknown case "resources\/tombstones"/);
  });

  it("refuses a skip without a reason", () => {
    expect(() =>
      describeStoreConformance({
        name: "no reason",
        create: createNaiveStores,
        skip: { "resources/cas": " " },
      }),
    ).toThrow(/needs a reason/);
  });
});

// destroy runs after every case, passing or failing, with the stores that case used.
const destroyed: string[] = [];
describe("destroy", () => {
  describeStoreConformance({
    name: "destroy tracking",
    create: () => ({ ...createNaiveStores(), kind: `naive-${destroyed.length}` }),
    destroy: (stores) => {
      destroyed.push(stores.kind);
    },
    skip: Object.fromEntries(
      CONFORMANCE_CASES.slice(1).map((name) => [name, "only the first case is needed here"]),
    ),
  });
  it("ran once for the one case that ran", () => {
    expect(destroyed).toEqual(["naive-0"]);
  });
});
