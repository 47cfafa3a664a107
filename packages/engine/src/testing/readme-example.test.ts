import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { main } from "./readme-example.js";

describe("README example", () => {
  it("runs as written and is the README's text", async () => {
    const { types, status, snapshot } = await main();
    expect(types[0]).toBe("request.started");
    expect(types.at(-1)).toBe("request.completed");
    expect(status).toBe(200);
    expect(snapshot).toMatchObject({
      clientData: { session: { added: 1 } },
      resources: { session: { notes: { count: 1 } } },
    });
    const readme = readFileSync(new URL("../../README.md", import.meta.url), "utf8");
    const example = readFileSync(new URL("./readme-example.ts", import.meta.url), "utf8");
    const body = example.split("\n").slice(1).join("\n").trim();
    expect(readme).toContain(body);
  });
});
