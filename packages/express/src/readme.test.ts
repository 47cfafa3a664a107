import { spawn } from "node:child_process";
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import request from "supertest";
import { expect, test } from "vitest";

const packageDir = fileURLToPath(new URL("..", import.meta.url));

test("the README example runs as written and serves the API", async () => {
  const readme = readFileSync(join(packageDir, "README.md"), "utf8");
  const code = /```ts\n([\s\S]*?)```/.exec(readme)?.[1];
  expect(code).toBeDefined();
  // Inside the package, so that its imports (this package by name included) resolve as in an app.
  const file = join(packageDir, `.readme-example-${process.pid}.mts`);
  writeFileSync(file, code!);

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
        const match = /notebook API on (\S+)\n/.exec(stdout);
        if (match) resolve(match[1]!);
      });
      child.once("exit", (code) => reject(new Error(`example exited with ${code}: ${stderr}`)));
    });
    const created = await request(url).post("/notebook/sessions").send({ userId: "ada" }).expect(201);
    await request(url)
      .post("/notebook/actions/addNote")
      .send({ sessionId: created.body.session.id, userId: "ada", input: { key: "a", title: "A" } })
      .expect(202);
  } finally {
    child.kill("SIGKILL");
    rmSync(file, { force: true });
  }
}, 20_000);
