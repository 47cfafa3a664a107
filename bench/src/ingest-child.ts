/**
 * Starts and talks to a server of the `ingest` benchmark (`ingest-server.ts`), each in its own child process; with a
 * baseline tree (`baseline-tree.ts`) the same server file runs from that tree's copy of this checkout's sources, on
 * the tree's built packages.
 */
import { type ChildProcess, fork } from "node:child_process";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { assertLoadsFrom, type BaselineTree } from "./baseline-tree.js";
import type { IngestMode, IngestStats } from "./ingest-server.js";
import { serverExecArgv } from "./server-args.js";
import { WEBHOOK_PATH } from "./webhooks-flowrt-app.js";

const SERVER = fileURLToPath(new URL("./ingest-server.ts", import.meta.url));
const BENCH_DIR = fileURLToPath(new URL("..", import.meta.url));
/** Must match `PEER_PATH` of `ingest-peer-memory.ts` (not imported here: it loads stripe). */
const PEER_PATH = "/webhooks/stripe";

export interface IngestServer {
  mode: IngestMode;
  /** How the server is named in tables. */
  label: string;
  /** flowrt modes: the file `@flowrt/engine` resolved to in the server's process. */
  engine?: string;
  /** Where deliveries are posted. */
  url: string;
  stats(): Promise<IngestStats>;
  stop(): Promise<void>;
}

export interface IngestServerOptions {
  label: string;
  /** Variables for the server (database, schema, pool), on top of this process's environment. */
  env?: Record<string, string>;
  /** Run this checkout's server on that tree's built packages (the "before" of a before/after run). */
  baseline?: BaselineTree;
}

export async function startIngestServer(
  mode: IngestMode,
  options: IngestServerOptions,
): Promise<IngestServer> {
  const { baseline, label } = options;
  const child: ChildProcess = fork(baseline ? join(baseline.srcDir, "ingest-server.ts") : SERVER, [mode], {
    execPath: process.execPath,
    // The built `dist` by default (`run()` builds first); INGEST_BENCH_SOURCE, _CPU_PROF and _NODE_ARGS as documented.
    execArgv: serverExecArgv("INGEST", `${mode}${baseline ? "-baseline" : ""}`),
    cwd: baseline?.benchDir ?? BENCH_DIR,
    stdio: ["ignore", "pipe", "pipe", "ipc"],
    env: { ...process.env, ...options.env, NODE_ENV: "production" },
  });
  let engine: string | undefined;
  let err = "";
  child.stderr?.on("data", (chunk: Buffer) => {
    err += chunk.toString();
    // A server's warnings and errors (a failed handler, a pool error) stay visible.
    process.stderr.write(`[${label}] ${chunk.toString()}`);
  });
  const port = await new Promise<number>((resolve, reject) => {
    let out = "";
    child.stdout?.on("data", (chunk: Buffer) => {
      const lines = (out + chunk.toString()).split("\n");
      out = lines.pop() ?? "";
      for (const line of lines) {
        const listening = /^listening (\d+)$/.exec(line);
        if (listening) resolve(Number(listening[1]));
        engine ??= /^engine (.+)$/.exec(line)?.[1];
      }
    });
    child.once("exit", (code) =>
      reject(new Error(`${label} server exited (${code}) before listening:\n${err}`)),
    );
  });
  if (mode.startsWith("flowrt")) {
    process.stderr.write(`${label}: @flowrt/engine resolved to ${engine}\n`);
    try {
      if (!engine) throw new Error(`${label} server did not say which @flowrt/engine it loaded`);
      assertLoadsFrom(label, engine, baseline);
    } catch (error) {
      child.kill("SIGKILL");
      throw error;
    }
  }
  let nextId = 0;
  const pending = new Map<number, (stats: IngestStats) => void>();
  child.on("message", (message: { type?: string; id?: number } & IngestStats) => {
    if (message?.type !== "stats" || message.id === undefined) return;
    pending.get(message.id)?.({ cpuUs: message.cpuUs, runs: message.runs, roundTrips: message.roundTrips });
    pending.delete(message.id);
  });
  return {
    mode,
    label,
    ...(engine !== undefined ? { engine } : {}),
    url: `http://127.0.0.1:${port}${mode.startsWith("flowrt") ? WEBHOOK_PATH : PEER_PATH}`,
    stats: () =>
      new Promise<IngestStats>((resolve) => {
        const id = nextId++;
        pending.set(id, resolve);
        child.send({ type: "stats", id });
      }),
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once("exit", () => resolve());
        child.kill("SIGTERM");
        setTimeout(() => child.kill("SIGKILL"), 10_000).unref();
      }),
  };
}
