/**
 * Starts `pages-server.ts` in its own Node process (the packages' built `dist` by default, as an installed
 * application runs them; `PAGES_BENCH_SOURCE=1` runs the TypeScript sources through tsx, and `PAGES_BENCH_NODE_ARGS`
 * / `PAGES_BENCH_CPU_PROF` work as the HTTP benchmark's knobs do, see `server-args.ts`), waits until it has loaded
 * its items and listens, and talks to it over IPC: CPU time and resident set on request, close.
 */
import { type ChildProcess, fork } from "node:child_process";
import { once } from "node:events";
import { fileURLToPath } from "node:url";
import type { PagesChildMessage, PagesReady, PagesStoreKind } from "./pages-server.js";
import { serverExecArgv } from "./server-args.js";

export interface PagesChild extends PagesReady {
  kind: PagesStoreKind;
  origin: string;
  /** CPU time the child used so far (user + system, µs) and its resident set (bytes). */
  usage(): Promise<{ cpuUs: number; rss: number }>;
  /** Lines the child wrote to stderr so far. */
  logLines(): string[];
  close(): Promise<void>;
}

const script = fileURLToPath(new URL("./pages-server.ts", import.meta.url));

export async function startPagesServer(
  kind: PagesStoreKind,
  items: number,
  env: Record<string, string>,
): Promise<PagesChild> {
  const child: ChildProcess = fork(script, [kind, String(items)], {
    execPath: process.execPath,
    execArgv: serverExecArgv("PAGES", `${kind}-${items}`),
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
  const name = `${kind} server with ${items} items`;
  const ready = await new Promise<PagesReady>((resolve, reject) => {
    child.on("message", (message: PagesChildMessage) => {
      if (message.type === "ready") resolve(message);
      else if (message.type === "error")
        reject(new Error(`the ${name} failed to start:\n${message.message}`));
    });
    child.once("exit", (code) =>
      reject(new Error(`the ${name} exited (code ${code}) before listening:\n${lines.join("\n")}`)),
    );
  });

  let waiting: ((usage: { cpuUs: number; rss: number }) => void) | undefined;
  child.on("message", (message: PagesChildMessage) => {
    if (message.type !== "usage") return;
    waiting?.({ cpuUs: message.cpuUs, rss: message.rss });
    waiting = undefined;
  });
  return {
    ...ready,
    kind,
    origin: `http://127.0.0.1:${ready.port}`,
    usage() {
      // One question at a time: the benchmark asks between requests, never while one is waiting.
      return new Promise((resolve) => {
        waiting = resolve;
        child.send({ type: "usage" });
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
