import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { main } from "./testing/readme-example.js";

describe("webhooks README example", () => {
  it("runs as written (a redelivery is recorded once) and is the README's text", async () => {
    const { outputs, tamperedStatus } = await main();
    expect(outputs).toEqual([{ recorded: "in_1" }, { duplicate: true }]);
    expect(tamperedStatus).toBe(401);
    const readme = readFileSync(new URL("./README.md", import.meta.url), "utf8");
    const example = readFileSync(new URL("./testing/readme-example.ts", import.meta.url), "utf8");
    expect(readme).toContain(example.split("\n").slice(1).join("\n").trim());
  });
});
