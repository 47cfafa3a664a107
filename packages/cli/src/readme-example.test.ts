import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import request from "supertest";
import { afterAll, expect, test } from "vitest";

const packageDir = fileURLToPath(new URL("..", import.meta.url));
const readme = readFileSync(join(packageDir, "README.md"), "utf8");
// Inside the package, so that the examples' imports (this package by name included) resolve as in an app.
const appDir = mkdtempSync(join(packageDir, ".readme-example-"));

afterAll(() => rmSync(appDir, { recursive: true, force: true }));

/** The first `ts` block after `heading` (the README's first one without a heading). */
function example(heading?: string): string {
  const from = heading === undefined ? 0 : readme.indexOf(`\n${heading}\n`);
  expect(from).toBeGreaterThanOrEqual(0);
  const code = /```ts\n([\s\S]*?)```/.exec(readme.slice(from))?.[1];
  expect(code).toBeDefined();
  return code!;
}

/** Runs `node <args>` in the example's directory (through tsx, workspace packages from their sources). */
function run(args: string[]) {
  const child = spawn(process.execPath, ["--conditions=@flowrt/source", "--import", "tsx", ...args], {
    cwd: appDir,
    env: { ...process.env, NODE_ENV: "test" },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
    stdout += chunk;
  });
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
    stderr += chunk;
  });
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  return { child, exited, output: () => ({ stdout, stderr }) };
}

test("the README's flows module serves with `flowrt serve ./flows.ts`, and its curl line creates a session", async () => {
  writeFileSync(join(appDir, "flows.ts"), example());
  const serving = run([join(packageDir, "src/cli.ts"), "serve", "./flows.ts", "--port", "0"]);
  try {
    const url = await new Promise<string>((resolve, reject) => {
      serving.child.stdout.on("data", () => {
        const match = /flowrt listening on (\S+)\n/.exec(serving.output().stdout);
        if (match) resolve(match[1]!);
      });
      serving.exited.then((code) => reject(new Error(`exited ${code}: ${serving.output().stderr}`)));
    });
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/api\/flows$/);
    const created = await request(url).post("/notebook/sessions").send({ userId: "ada" }).expect(201);
    await request(url)
      .post("/notebook/actions/addNote")
      .send({ sessionId: created.body.session.id, userId: "ada", input: { key: "a", title: "A" } })
      .expect(202);
  } finally {
    serving.child.kill("SIGKILL");
  }
}, 20_000);

test("the README's `From code` example serves the module, prints its URL and closes", async () => {
  writeFileSync(join(appDir, "flows.ts"), example());
  writeFileSync(join(appDir, "from-code.mts"), example("## From code"));
  const script = run(["./from-code.mts"]);
  expect(await script.exited).toBe(0);
  // The example's flow has no resolver: the host says so once at start (a warning on stderr), and nothing else.
  expect(script.output()).toEqual({
    stdout: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+\/api\/flows\n$/),
    stderr: expect.stringMatching(
      /^\{"level":40,[^\n]*"flows":\["notebook"\][^\n]*"msg":"flows open to anyone[^\n]*\}\n$/,
    ),
  });
}, 20_000);
