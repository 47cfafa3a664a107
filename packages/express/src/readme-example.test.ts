import { spawn } from "node:child_process";
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import request from "supertest";
import { expect, test } from "vitest";

const packageDir = fileURLToPath(new URL("..", import.meta.url));
const readme = readFileSync(join(packageDir, "README.md"), "utf8");

/** The first `ts` block after `heading` (the README's first one without a heading). */
function example(heading?: string): string {
  const from = heading === undefined ? 0 : readme.indexOf(`\n${heading}\n`);
  expect(from).toBeGreaterThanOrEqual(0);
  const code = /```ts\n([\s\S]*?)```/.exec(readme.slice(from))?.[1];
  expect(code).toBeDefined();
  return code!;
}

/**
 * Runs an example as written (inside the package, so that its imports, this package by name included,
 * resolve as in an app) and hands `use` the URL it prints on the line matching `banner`.
 */
async function runExample(code: string, banner: RegExp, use: (url: string) => Promise<void>): Promise<void> {
  const file = join(packageDir, `.readme-example-${process.pid}-${Math.random().toString(36).slice(2)}.mts`);
  writeFileSync(file, code);
  const child = spawn(process.execPath, ["--conditions=@flowrt/source", "--import", "tsx", file], {
    cwd: packageDir,
    env: { ...process.env, PORT: "0" },
    stdio: ["ignore", "pipe", "pipe"],
  });
  try {
    let stderr = "";
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
      stderr += chunk;
    });
    const url = await new Promise<string>((resolve, reject) => {
      let stdout = "";
      child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
        stdout += chunk;
        const match = banner.exec(stdout);
        if (match) resolve(match[1]!);
      });
      child.once("exit", (code) => reject(new Error(`example exited with ${code}: ${stderr}`)));
    });
    await use(url);
  } finally {
    child.kill("SIGKILL");
    rmSync(file, { force: true });
  }
}

test("the README example runs as written and serves the API", async () => {
  await runExample(example(), /notebook API on (\S+)\n/, async (url) => {
    const created = await request(url).post("/notebook/sessions").send({ userId: "ada" }).expect(201);
    await request(url)
      .post("/notebook/actions/addNote")
      .send({ sessionId: created.body.session.id, userId: "ada", input: { key: "a", title: "A" } })
      .expect(202);
  });
}, 20_000);

test("the custom inbound routes example runs as written: its route answers 202, beside the API", async () => {
  await runExample(example("## Custom inbound routes"), /slash commands on (\S+)\n/, async (url) => {
    const res = await request(url).post("").type("form").send("user_id=U42&text=hello").expect(202);
    expect(res.body).toEqual({ requestId: expect.any(String) });
    // The API is served beside the route, by the same router.
    const { origin } = new URL(url);
    const flows = await request(origin).get("/api/flows").expect(200);
    expect(flows.body.flows.map((f: { flowId: string }) => f.flowId)).toEqual(["chat"]);
  });
}, 20_000);
