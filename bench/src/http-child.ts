/**
 * Starts a server under test in its own Node process (`process.execPath --import tsx http-server.ts
 * <kind>`), on the packages' built `dist` output as an installed application runs them (`pnpm bench`
 * builds first; HTTP_BENCH_SOURCE=1 runs the TypeScript sources through tsx instead, whose helpers
 * add cost of their own). It talks to the child over IPC: wait until it listens, sample its
 * resident memory, stop it. Its stderr (the host's warnings and errors) is collected, not printed.
 * With a baseline tree (`baseline-tree.ts`) the same server runs on the baseline's built packages.
 */
import { type ChildProcess, fork } from "node:child_process";
import { once } from "node:events";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { assertLoadsFrom, type BaselineTree } from "./baseline-tree.js";
import {
  type ChildMessage,
  isFlowrtKind,
  type ServerKind,
  type ServerReady,
  type ServerUsage,
} from "./http-fixture.js";
import { serverExecArgv } from "./server-args.js";

export interface ServerChild extends ServerReady {
  kind: ServerKind;
  /** The kind (`flowrt`, `bare`, `flowrt-node`, `bare-node`), `flowrt (sdk)` (a telemetry variant) or `flowrt (baseline)`: how tables and messages name this server. */
  label: string;
  url: string;
  /** What its `.cpuprofile` is named after (`<profile>-<time>.cpuprofile`) with `HTTP_BENCH_CPU_PROF` set. */
  profile: string;
  /** The child's resident set and heap in bytes, CPU time used, and (flowrt) failed and unfinished requests. */
  usage(): Promise<ServerUsage>;
  /** Lines the child wrote to stderr so far (the host logs warnings and errors there). */
  logLines(): string[];
  close(): Promise<void>;
}

const script = fileURLToPath(new URL("./http-server.ts", import.meta.url));

export interface StartOptions {
  /** Run this checkout's server on that tree's built packages (the "before" of a before/after run). */
  baseline?: BaselineTree;
}

/** What a server's `.cpuprofile` is named after: its kind, telemetry variant and tree (`HTTP_BENCH_CPU_PROF`). */
function profileName(
  kind: ServerKind,
  env: Record<string, string>,
  baseline: BaselineTree | undefined,
): string {
  const variant = env.HTTP_BENCH_TELEMETRY;
  return `${kind}${variant ? `-${variant}` : ""}${baseline ? "-baseline" : ""}`;
}

export async function startServer(
  kind: ServerKind,
  env: Record<string, string> = {},
  options: StartOptions = {},
): Promise<ServerChild> {
  const { baseline } = options;
  const variant = env.HTTP_BENCH_TELEMETRY;
  const label = baseline ? `${kind} (baseline)` : variant ? `${kind} (${variant})` : kind;
  const profile = profileName(kind, env, baseline);
  const child: ChildProcess = fork(baseline ? join(baseline.srcDir, "http-server.ts") : script, [kind], {
    execPath: process.execPath,
    // The built `dist` by default; HTTP_BENCH_SOURCE, HTTP_BENCH_CPU_PROF and HTTP_BENCH_NODE_ARGS as documented.
    execArgv: serverExecArgv("HTTP", profile),
    ...(baseline ? { cwd: baseline.benchDir } : {}),
    env: { ...process.env, ...env },
    stdio: ["ignore", "inherit", "pipe", "ipc"],
  });
  const lines: string[] = [];
  let partial = "";
  child.stderr?.setEncoding("utf8").on("data", (chunk: string) => {
    const parts = (partial + chunk).split("\n");
    partial = parts.pop() ?? "";
    for (const line of parts) if (line.trim() !== "") lines.push(line);
  });

  const ready = await new Promise<ServerReady>((resolve, reject) => {
    const onMessage = (message: ChildMessage) => {
      if (message.type === "ready") resolve(message);
      else if (message.type === "error")
        reject(new Error(`${label} server failed to start:\n${message.message}`));
    };
    child.on("message", onMessage);
    child.once("exit", (code) =>
      reject(new Error(`${label} server exited (code ${code}) before listening:\n${lines.join("\n")}`)),
    );
  });
  if (isFlowrtKind(kind)) {
    // Once per server: which checkout's build it runs, so a before/after run shows it compared two.
    process.stderr.write(`${label}: @flowrt/engine resolved to ${ready.engine}\n`);
    try {
      assertLoadsFrom(label, ready.engine, baseline);
    } catch (error) {
      child.kill("SIGKILL");
      throw error;
    }
  }

  let nextId = 0;
  const pending = new Map<number, (usage: ServerUsage) => void>();
  child.on("message", (message: ChildMessage) => {
    if (message.type !== "usage") return;
    const { type: _type, id: _id, ...usage } = message;
    pending.get(message.id)?.(usage);
    pending.delete(message.id);
  });

  return {
    ...ready,
    kind,
    label,
    profile,
    url: `http://127.0.0.1:${ready.port}`,
    usage() {
      const id = nextId++;
      return new Promise((resolve) => {
        pending.set(id, resolve);
        child.send({ type: "usage", id });
      });
    },
    logLines: () => [...lines],
    async close() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = once(child, "exit");
      child.send({ type: "close" });
      const timer = setTimeout(() => child.kill("SIGKILL"), 10_000);
      await exited;
      clearTimeout(timer);
    },
  };
}
