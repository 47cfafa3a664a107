import { existsSync } from "node:fs";
import { join } from "node:path";
import request from "supertest";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { cleanUp, flowrt, packageDir } from "../testing/spawn-flowrt.js";

const STRIP_OFF = ["--no-experimental-strip-types"];

beforeAll(() => {
  // These cases run the published entry on plain Node, as an installed CLI runs: they need the build.
  for (const built of [
    "packages/cli/dist/cli.js",
    "packages/core/dist/index.js",
    "packages/engine/dist/index.js",
  ]) {
    if (!existsSync(join(packageDir, "../..", built)))
      throw new Error(`${built} is missing: run pnpm build first`);
  }
});
afterAll(cleanUp);

/** Serves `module` with the built CLI and checks its flows answer, then stops it. */
async function serves(
  module: string,
  built: { nodeOptions?: string[]; withoutTsx?: boolean },
  flowId: string,
) {
  const run = flowrt(["serve", module, "--port", "0"], { built });
  const url = await run.listening;
  const listed = await request(url).get("").expect(200);
  expect(listed.body.flows.map((f: { flowId: string }) => f.flowId)).toEqual([flowId]);
  await request(url).post(`/${flowId}/sessions`).send({}).expect(201);
  run.child.kill("SIGTERM");
  expect(await run.exited).toBe(0);
}

/** Runs the built CLI on `module`, expecting it to refuse: exit 1, one `flowrt:` line, never listening. */
async function refuses(module: string, built: { nodeOptions?: string[]; withoutTsx?: boolean }) {
  const run = flowrt(["serve", module, "--port", "0"], { built });
  expect(await run.exited).toBe(1);
  const { stdout, stderr } = run.output();
  expect(stdout).not.toContain("listening");
  expect(stderr.startsWith("flowrt: ")).toBe(true);
  return stderr;
}

describe.concurrent("loading a TypeScript flows module (tsx is an optional peer)", () => {
  test("Node's own type stripping loads it, with tsx not installed", async () => {
    // The repository's Node (24) strips types by default; the case is meaningless on one that does not.
    expect(process.features.typescript).toBe("strip");
    await serves("src/testing/strippable-flows.ts", { withoutTsx: true }, "greeter");
  }, 60_000);

  test("on a Node that does not strip types, tsx loads it", async () => {
    await serves("src/testing/strippable-flows.ts", { nodeOptions: STRIP_OFF }, "greeter");
  }, 60_000);

  test("with neither, the CLI exits 1 naming both ways to load it", async () => {
    const stderr = await refuses("src/testing/strippable-flows.ts", {
      nodeOptions: STRIP_OFF,
      withoutTsx: true,
    });
    expect(stderr).toContain("strippable-flows.ts is TypeScript, and Node v");
    expect(stderr).toContain("does not strip types");
    expect(stderr).toContain("run flowrt on a Node that does (22.18 or later");
    expect(stderr).toContain("install tsx beside @flowrt/cli (`npm install --save-dev tsx`)");
  }, 60_000);

  test("a module that needs more than stripping (an enum) loads through tsx when it is installed", async () => {
    await serves("src/testing/enum-flows.ts", {}, "toned");
  }, 60_000);

  test("without tsx, such a module is refused with Node's reason and the way to load it", async () => {
    const stderr = await refuses("src/testing/enum-flows.ts", { withoutTsx: true });
    expect(stderr).toContain("Node could not load");
    expect(stderr).toContain("enum");
    expect(stderr).toContain("install tsx beside @flowrt/cli");
  }, 60_000);
});
