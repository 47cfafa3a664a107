import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

export const packageDir = fileURLToPath(new URL("../..", import.meta.url));
const children: ChildProcess[] = [];
/** The test runner's environment without what `flowrt` reads: each case says what it sets. */
const {
  PORT: _port,
  HOST: _host,
  DATABASE_URL: _db,
  FLOWRT_STORE: _store,
  FLOWRT_GRACE_MS: _grace,
  ...environment
} = process.env;
const dirs: string[] = [];

/** Kills what is still running and removes the temporary folders (an `afterAll`). */
export function cleanUp(): void {
  for (const child of children.splice(0)) if (child.exitCode === null) child.kill("SIGKILL");
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
}

export function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "flowrt-cli-"));
  dirs.push(dir);
  return dir;
}

export interface FlowrtSpawnOptions {
  /** The store packages resolve as if they were not installed. */
  withoutStores?: boolean;
  /** Added to the environment. */
  env?: Record<string, string>;
  /**
   * Runs the published entry, `bin/flowrt.js` over `dist/` and the workspace packages' builds, on plain Node (no
   * tsx hooks), with these Node options first, as an installed `flowrt` runs; `pnpm build` makes what it runs.
   */
  built?: { nodeOptions?: string[]; withoutTsx?: boolean };
}

/**
 * Starts `flowrt` from its source (through tsx, resolving workspace packages to their sources), or its build
 * (`built`), in this package's folder.
 */
export function flowrt(args: string[], { withoutStores = false, env = {}, built }: FlowrtSpawnOptions = {}) {
  const hooks = withoutStores ? ["--import", "./src/testing/without-stores.ts"] : [];
  const entry =
    built === undefined
      ? ["--conditions=@flowrt/source", "--import", "tsx", ...hooks, "src/cli.ts"]
      : [
          ...(built.nodeOptions ?? []),
          ...(built.withoutTsx ? ["--import", "./src/testing/without-tsx.mjs"] : []),
          "bin/flowrt.js",
        ];
  const child = spawn(process.execPath, [...entry, ...args], {
    cwd: packageDir,
    env: { ...environment, NODE_ENV: "test", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  children.push(child);
  let stdout = "";
  let stderr = "";
  child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
    stdout += chunk;
  });
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
    stderr += chunk;
  });
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  const listening = new Promise<string>((resolve, reject) => {
    child.stdout.on("data", () => {
      const match = /flowrt listening on (\S+)\n/.exec(stdout);
      if (match) resolve(match[1]!);
    });
    exited.then((code) => reject(new Error(`flowrt exited with ${code} before listening: ${stderr}`)));
  });
  listening.catch(() => {});
  /** Settles once stdout holds `pattern`. */
  const printed = (pattern: RegExp) =>
    new Promise<RegExpExecArray>((resolve, reject) => {
      const look = () => {
        const match = pattern.exec(stdout);
        if (match) resolve(match);
      };
      child.stdout.on("data", look);
      look();
      exited.then((code) => reject(new Error(`flowrt exited with ${code}: ${stderr}`)));
    });
  return { child, exited, listening, printed, output: () => ({ stdout, stderr }) };
}
