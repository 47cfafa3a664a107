import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, test } from "vitest";
import { cleanUp, flowrt, packageDir, tempDir } from "../testing/spawn-flowrt.js";
import { DEV_STORE, devBanner, devServeArguments } from "./dev.js";

// A flows module in a folder of its own inside the package (so its imports resolve), changed while `flowrt dev`
// serves it.
const folder = join(packageDir, "src", "testing", `dev-fixture-${process.pid}`);
afterAll(() => {
  cleanUp();
  rmSync(folder, { recursive: true, force: true });
});

const flowsModule = (actions: string[]) => `import { defineFlow, handler } from "@flowrt/core";
${actions.map((name) => `const ${name} = handler({ name: "${name}", execute: async () => ({ ran: "${name}" }) });`).join("\n")}
export const notebook = defineFlow({ kind: "notebook", actions: { ${actions.join(", ")} } });
`;

describe("flowrt dev", () => {
  test("serves the module with the inspector and its page, restarts on a change, and stops on SIGTERM", async () => {
    mkdirSync(join(folder, "public"), { recursive: true });
    writeFileSync(join(folder, "flows.ts"), flowsModule(["first"]));
    writeFileSync(join(folder, "public", "index.html"), "<!doctype html><title>dev page</title>");
    const data = tempDir();
    const dev = flowrt(["dev", join(folder, "flows.ts"), "--port", "0"], {
      env: { FLOWRT_STORE: `fs:${data}` },
    });
    const api = await dev.listening;
    const origin = new URL(api).origin;
    await dev.printed(/flowrt dev: inspector {2}\S+\/_inspector\n/);
    expect(dev.output().stdout).toContain(`flowrt dev: page       ${origin}/`);

    const page = await fetch(`${origin}/`);
    expect(await page.text()).toContain("dev page");
    const inspector = await fetch(`${api}/_inspector`);
    expect(inspector.status).toBe(200);
    expect(inspector.headers.get("content-type")).toMatch(/^text\/html/);
    const actions = async () =>
      (
        (await (await fetch(`${api}/`)).json()) as { flows: { flowId: string; actions: string[] }[] }
      ).flows.find((flow) => flow.flowId === "notebook")?.actions;
    expect(await actions()).toEqual(["first"]);

    const before = dev.output().stdout.split("flowrt listening on").length;
    writeFileSync(join(folder, "flows.ts"), flowsModule(["first", "second"]));
    await expect
      .poll(() => dev.output().stdout.split("flowrt listening on").length, { timeout: 30_000, interval: 100 })
      .toBeGreaterThan(before);
    const restarted = /flowrt listening on (\S+)\n(?![\s\S]*flowrt listening on)/.exec(
      dev.output().stdout,
    )![1]!;
    const again = await fetch(`${restarted}/`);
    expect(
      ((await again.json()) as { flows: { flowId: string; actions: string[] }[] }).flows.find(
        (f) => f.flowId === "notebook",
      )?.actions,
    ).toEqual(["first", "second"]);

    dev.child.kill("SIGTERM");
    expect(await dev.exited).toBe(0);
    await expect(fetch(`${restarted}/`)).rejects.toThrow();
  }, 90_000);

  test("passes on what it was given, the filesystem store and .env by default", () => {
    const cwd = tempDir();
    const context = { cliPath: "/x/cli.js", cwd, env: {}, execArgv: ["--conditions=dev", "--watch"] };
    const args = devServeArguments({ modulePath: "app/flows.ts", port: "4000" }, context);
    expect(args).toEqual([
      "--conditions=dev",
      `--watch-path=${join(cwd, "app")}`,
      "--watch-preserve-output",
      "/x/cli.js",
      "serve",
      join(cwd, "app", "flows.ts"),
      "--store",
      DEV_STORE,
      "--grace-ms",
      "0",
      "--port",
      "4000",
    ]);
    writeFileSync(join(cwd, ".env"), "A=1\n");
    expect(
      devServeArguments({ modulePath: "flows.ts" }, { ...context, env: { FLOWRT_STORE: "memory" } }),
    ).toEqual(expect.arrayContaining(["--store", "memory", "--env-file", ".env"]));
    expect(devServeArguments({ modulePath: "flows.ts", store: "fs:x" }, context)).toContain("fs:x");
    expect(devBanner("http://h:1/api/flows", "http://h:1", { inspector: false, page: false })).toContain(
      "npm install -D @flowrt/inspector",
    );
  });
});
