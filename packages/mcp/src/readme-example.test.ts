import { spawn } from "node:child_process";
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { expect, test } from "vitest";

const packageDir = fileURLToPath(new URL("..", import.meta.url));
const readme = readFileSync(join(packageDir, "README.md"), "utf8");

/** Runs the README's first `ts` block as written, inside the package, until it prints its endpoint. */
async function runExample(use: (url: string) => Promise<void>): Promise<void> {
  const code = /```ts\n([\s\S]*?)```/.exec(readme)?.[1];
  expect(code).toBeDefined();
  const file = join(packageDir, `.readme-example-${process.pid}-${Math.random().toString(36).slice(2)}.mts`);
  writeFileSync(file, code!);
  const child = spawn(process.execPath, ["--conditions=@flowrt/source", "--import", "tsx", file], {
    cwd: packageDir,
    env: { ...process.env, PORT: "0", ADA_TOKEN: "" }, // unset: the development token stands
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
        const match = /MCP endpoint on (\S+)\n/.exec(stdout);
        if (match) resolve(match[1]!);
      });
      child.once("exit", (exit) => reject(new Error(`example exited with ${exit}: ${stderr}`)));
    });
    await use(url);
  } finally {
    child.kill("SIGKILL");
    rmSync(file, { force: true });
  }
}

async function connect(url: string, headers: Record<string, string>): Promise<Client> {
  const client = new Client({ name: "readme", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } }));
  return client;
}

test("the README example runs as written: an MCP client with the token lists and calls the tool", async () => {
  await runExample(async (url) => {
    const ada = await connect(url, { authorization: "Bearer dev-token-ada" });
    expect((await ada.listTools()).tools.map((tool) => tool.name)).toEqual(["notebook.addNote"]);
    const result = await ada.callTool({
      name: "notebook.addNote",
      arguments: { input: { key: "a", title: "A" } },
    });
    expect((result.structuredContent as { output: unknown }).output).toEqual({ ok: true });
    const stranger = await connect(url, { authorization: "Bearer guess" });
    expect((await stranger.listTools()).tools).toEqual([]);
    await Promise.all([ada.close(), stranger.close()]);
  });
}, 60_000);
