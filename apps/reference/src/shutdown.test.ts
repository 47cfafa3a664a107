import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { connect, createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { createFsStores } from "@flowrt/store-fs";
import { afterAll, describe, expect, test } from "vitest";
import { signDevToken } from "./auth/dev-tokens.js";

const repoRoot = fileURLToPath(new URL("../../..", import.meta.url));
const dataDir = mkdtempSync(join(tmpdir(), "flowrt-reference-shutdown-"));
const started: ChildProcess[] = [];

afterAll(() => {
  for (const child of started)
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
  rmSync(dataDir, { recursive: true, force: true });
});

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** Every process below `pid` (children, their children…), read from /proc. */
function descendants(pid: number): number[] {
  const children = new Map<number, number[]>();
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      // The parent pid is the 4th field, after the command name in parentheses (which may hold spaces).
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      children.set(ppid, [...(children.get(ppid) ?? []), Number(entry)]);
    } catch {
      // gone meanwhile
    }
  }
  const found: number[] = [];
  const walk = (parent: number) => {
    for (const child of children.get(parent) ?? []) {
      found.push(child);
      walk(child);
    }
  };
  walk(pid);
  return found;
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

/** Whether something accepts connections on the port. */
const listening = (port: number) =>
  new Promise<boolean>((resolve) => {
    const socket = connect(port, "127.0.0.1");
    socket.once("connect", () => {
      socket.destroy();
      resolve(true);
    });
    socket.once("error", () => resolve(false));
  });

/**
 * The PATH of a shell or a container's command: without the `node_modules/.bin` folders this test runs under (where
 * `node` is the `node` package's shell shim, which would stand between this test and pnpm).
 */
const PATH = (process.env.PATH ?? "")
  .split(":")
  .filter((dir) => !dir.includes("node_modules"))
  .join(":");

/** `pnpm start` from the repository root, as a developer (or a container's command) runs it. */
function pnpmStart(port: number, env: Record<string, string> = {}) {
  const child = spawn("pnpm", ["start"], {
    cwd: repoRoot,
    env: { ...process.env, PATH, PORT: String(port), HOST: "127.0.0.1", FLOWRT_DATA_DIR: dataDir, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  started.push(child);
  let stdout = "";
  let stderr = "";
  child.stdout!.setEncoding("utf8").on("data", (chunk: string) => {
    stdout += chunk;
  });
  child.stderr!.setEncoding("utf8").on("data", (chunk: string) => {
    stderr += chunk;
  });
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  const printed = (pattern: RegExp) =>
    new Promise<void>((resolve, reject) => {
      const look = () => pattern.test(stdout) && resolve();
      child.stdout!.on("data", look);
      look();
      exited.then((code) => reject(new Error(`pnpm start exited with ${code}: ${stdout}\n${stderr}`)));
    });
  return { child, exited, printed, output: () => ({ stdout, stderr }) };
}

/** ada's development token: the server `pnpm start` runs checks it with the same default secret. */
const ada = {
  authorization: `Bearer ${await signDevToken({ userId: "ada", orgId: "acme" })}`,
  "content-type": "application/json",
};

describe("pnpm start and SIGTERM", () => {
  test("SIGTERM to the pnpm process drains and exits 0: nothing left listening, no process left, and the durable request still running is completed by the next start", async () => {
    const port = await freePort();
    const api = `http://127.0.0.1:${port}/api/flows`;
    const first = pnpmStart(port, { FLOWRT_GRACE_MS: "300" });
    await first.printed(/flowrt reference app on/);

    const created = await fetch(`${api}/notebook/sessions`, { method: "POST", headers: ada, body: "{}" });
    const sessionId = ((await created.json()) as { session: { id: string } }).session.id;
    const accepted = await fetch(`${api}/notebook/actions/addNoteLater`, {
      method: "POST",
      headers: ada,
      body: JSON.stringify({
        sessionId,
        input: { title: "Call the plumber", text: "at 9", delaySeconds: 3 },
      }),
    });
    expect(accepted.status).toBe(202);
    const { requestId } = (await accepted.json()) as { requestId: string };
    const running = await fetch(`${api}/requests/${requestId}`, { headers: ada });
    expect(((await running.json()) as { request: { status: string } }).request.status).toMatch(
      /queued|running/,
    );

    const below = descendants(first.child.pid!);
    expect(below.length).toBeGreaterThan(0);
    first.child.kill("SIGTERM");
    expect(await first.exited).toBe(0);
    expect(first.output().stdout).toContain("SIGTERM: draining");
    // The server process (and whatever it started) went with it; nothing listens on the port any more.
    for (let i = 0; i < 50 && below.some(alive); i++)
      await new Promise((resolve) => setTimeout(resolve, 100));
    expect(below.filter(alive)).toEqual([]);
    expect(await listening(port)).toBe(false);

    // The next start, on the same data, takes the request over at its first recovery pass and finishes it.
    const second = pnpmStart(port);
    await second.printed(/flowrt reference app on/);
    let request: { status: string; output?: { topic: string } } = { status: "" };
    for (let i = 0; i < 100 && request.status !== "completed"; i++) {
      const response = await fetch(`${api}/requests/${requestId}`, { headers: ada });
      request = ((await response.json()) as { request: typeof request }).request;
      if (request.status !== "completed") await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(request).toMatchObject({ status: "completed", output: { topic: "notes/call-the-plumber" } });
    const notes = await fetch(`${api}/sessions/${sessionId}/resources/notes`, { headers: ada });
    expect(((await notes.json()) as { items: { topic: string }[] }).items.map((item) => item.topic)).toEqual([
      "notes/call-the-plumber",
    ]);

    second.child.kill("SIGINT");
    expect(await second.exited).toBe(0);
    expect(await listening(port)).toBe(false);
  }, 60_000);

  test("a request that ends within the grace period completes before the process exits", async () => {
    const port = await freePort();
    const api = `http://127.0.0.1:${port}/api/flows`;
    const run = pnpmStart(port, { FLOWRT_GRACE_MS: "10000" });
    await run.printed(/flowrt reference app on/);
    const created = await fetch(`${api}/notebook/sessions`, { method: "POST", headers: ada, body: "{}" });
    const sessionId = ((await created.json()) as { session: { id: string } }).session.id;
    const accepted = await fetch(`${api}/notebook/actions/addNoteLater`, {
      method: "POST",
      headers: ada,
      body: JSON.stringify({ sessionId, input: { title: "Soon", delaySeconds: 1 } }),
    });
    const { requestId } = (await accepted.json()) as { requestId: string };
    run.child.kill("SIGTERM");
    await run.printed(/SIGTERM: draining/);
    const ready = await fetch(`${api}/readyz`);
    expect(ready.status).toBe(503);
    expect(await run.exited).toBe(0);

    // Read from the store the process left behind: the request finished before it exited.
    const stores = createFsStores({ dir: dataDir });
    try {
      expect(await stores.requests.get(requestId)).toMatchObject({ status: "completed" });
    } finally {
      await stores.close();
    }
  }, 60_000);
});
