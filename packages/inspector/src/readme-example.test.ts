import { spawn } from "node:child_process";
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { expect, test } from "vitest";

const packageDir = fileURLToPath(new URL("..", import.meta.url));
const readme = readFileSync(join(packageDir, "README.md"), "utf8");

test('the README\'s "Try it" example runs as written: the page and the flows it lists', async () => {
  const section = readme.slice(readme.indexOf("## Try it (runnable)"));
  const code = /```ts\n([\s\S]*?)```/.exec(section)?.[1];
  expect(code).toBeDefined();
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
        const match = /inspector on (\S+)\n/.exec(stdout);
        if (match) resolve(match[1]!);
      });
      child.once("exit", (exit) => reject(new Error(`example exited with ${exit}: ${stderr}`)));
    });
    const page = await fetch(url);
    expect(page.status).toBe(200);
    expect(page.headers.get("content-type")).toMatch(/^text\/html/);
    const flows = await (await fetch(`${url}/api/flows`)).json();
    expect(JSON.stringify(flows)).toContain('"hello"');
    expect(JSON.stringify(flows)).toContain('"greet"');
  } finally {
    child.kill("SIGKILL");
    rmSync(file, { force: true });
  }
}, 60_000);
