import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { FlowStores } from "@flowrt/core";
import { createFlowHost } from "@flowrt/engine";
import { createFsStores } from "@flowrt/store-fs";
import { afterAll, describe, expect, test } from "vitest";
import { eraseUserData } from "./cli/erase-user.js";
import { parseStoreSpec } from "./cli/store-spec.js";
import { notebook, slow } from "./testing/fixture-flows.js";

const packageDir = fileURLToPath(new URL("..", import.meta.url));
const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "flowrt-erase-"));
  dirs.push(dir);
  return dir;
}

/** Runs `flowrt` from its source (through tsx) to its exit. */
function flowrt(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const { PORT: _port, HOST: _host, ...environment } = process.env;
  const child = spawn(
    process.execPath,
    ["--conditions=@flowrt/source", "--import", "tsx", "src/cli.ts", ...args],
    {
      cwd: packageDir,
      env: { ...environment, NODE_ENV: "test" },
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  let stdout = "";
  let stderr = "";
  child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
    stdout += chunk;
  });
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
    stderr += chunk;
  });
  return new Promise((resolve) => child.once("exit", (code) => resolve({ code, stdout, stderr })));
}

/** Two users' notes in an fs store folder: u1 in two sessions (one in org o1), u2 in one. */
async function seed(dir: string): Promise<{ u2Session: string }> {
  const stores = createFsStores({ dir, fsync: false });
  const host = createFlowHost({ flows: [notebook, slow], stores, recoveryIntervalMs: 0, retention: false });
  await host.start();
  const run = async (userId: string, orgId?: string) => {
    const { request, session } = await host.invoke(
      "notebook",
      "addNote",
      { source: "test", principal: { userId, ...(orgId ? { orgId } : {}) } },
      { input: { key: "a", title: `${userId}'s` } },
    );
    for await (const _ of host.events(request.id));
    return session.id;
  };
  await run("u1");
  await run("u1", "o1");
  const u2Session = await run("u2");
  await host.close();
  await stores.close();
  return { u2Session };
}

async function openAt(dir: string): Promise<FlowStores> {
  return createFsStores({ dir, fsync: false });
}

describe("flowrt erase-user", () => {
  test("eraseUserData removes the user's sessions and requests from the module's store, and only theirs", async () => {
    const dir = tempDir();
    const { u2Session } = await seed(dir);
    const removed = await eraseUserData(
      { flows: [notebook, slow] },
      { store: parseStoreSpec(`fs:${dir}`), userId: "u1" },
    );
    expect(removed).toMatchObject({ sessions: 2, requests: 2, resources: 2, states: 2 });
    const stores = await openAt(dir);
    try {
      expect((await stores.sessions.list({ userId: "u1" })).items).toEqual([]);
      expect((await stores.sessions.list({ userId: "u2" })).items.map((s) => s.id)).toEqual([u2Session]);
      const requests = await stores.requests.listByStatus(["completed"]);
      expect(requests.map((r) => r.userId)).toEqual(["u2"]);
    } finally {
      await stores.close();
    }
    // Idempotent.
    expect(
      await eraseUserData({ flows: [notebook, slow] }, { store: parseStoreSpec(`fs:${dir}`), userId: "u1" }),
    ).toEqual({ sessions: 0, requests: 0, events: 0, states: 0, resources: 0, contents: 0 });
  }, 30_000);

  test("the command prints what it removed as JSON; --org narrows to that org", async () => {
    const dir = tempDir();
    await seed(dir);
    const narrowed = await flowrt([
      "erase-user",
      "--user",
      "u1",
      "--org",
      "o1",
      "--store",
      `fs:${dir}`,
      "src/testing/cli-flows.ts",
    ]);
    expect(narrowed.stderr).toBe("");
    expect(narrowed.code).toBe(0);
    expect(JSON.parse(narrowed.stdout)).toMatchObject({
      userId: "u1",
      orgId: "o1",
      removed: { sessions: 1 },
    });
    const all = await flowrt([
      "erase-user",
      "--user",
      "u1",
      "--store",
      `fs:${dir}`,
      "src/testing/cli-flows.ts",
    ]);
    expect(all.code).toBe(0);
    expect(JSON.parse(all.stdout)).toMatchObject({ userId: "u1", removed: { sessions: 1, requests: 1 } });
    const stores = await openAt(dir);
    try {
      expect((await stores.sessions.list({ userId: "u1" })).items).toEqual([]);
      expect((await stores.sessions.list({ userId: "u2" })).items).toHaveLength(1);
    } finally {
      await stores.close();
    }
  }, 60_000);

  test("usage mistakes exit 1 with a one-line message, before any store is opened", async () => {
    const dir = join(tempDir(), "never");
    const cases: [string[], string][] = [
      [
        ["erase-user", "--store", `fs:${dir}`, "src/testing/cli-flows.ts"],
        "flowrt: flowrt erase-user needs --user <id>.\n",
      ],
      [
        ["erase-user", "--user", "u1", "--port", "1", "--store", `fs:${dir}`, "src/testing/cli-flows.ts"],
        "flowrt: --port is an option of flowrt serve.\n",
      ],
      [
        ["erase-user", "--user", "u1", "--store", `fs:${dir}`],
        "flowrt: flowrt erase-user needs the path of a flows module.\n",
      ],
      [
        ["serve", "--user", "u1", "--store", `fs:${dir}`, "src/testing/cli-flows.ts"],
        "flowrt: --user is an option of flowrt erase-user.\n",
      ],
    ];
    const runs = await Promise.all(cases.map(([args]) => flowrt(args)));
    runs.forEach((run, i) => {
      expect(run.code).toBe(1);
      expect(run.stderr).toBe(cases[i]![1]);
      expect(run.stdout).toBe("");
    });
    expect(existsSync(dir)).toBe(false);
  }, 60_000);
});
