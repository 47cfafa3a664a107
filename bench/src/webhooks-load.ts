/**
 * Load helpers for the webhook ingest benchmarks: each server runs in its own child process
 * (`webhooks-server.ts`), autocannon drives it from this one. With a baseline tree (`baseline-tree.ts`) the
 * same server runs on the baseline's built packages.
 */
import { type ChildProcess, fork } from "node:child_process";
import { createHmac } from "node:crypto";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import autocannon from "autocannon";
import { assertLoadsFrom, type BaselineTree } from "./baseline-tree.js";
import { serverExecArgv } from "./server-args.js";

const SERVER = fileURLToPath(new URL("./webhooks-server.ts", import.meta.url));
const BENCH_DIR = fileURLToPath(new URL("..", import.meta.url));

/** Must match `webhooks-server.ts`. */
const SECRET = "whsec_bench";

export type ServerMode = "bare" | "bare-run" | "bare-slow" | "flowrt-instant" | "flowrt-slow";

export interface RunningServer {
  mode: ServerMode;
  /** The mode, with ` (baseline)` after it for a server on the baseline tree. */
  label: string;
  /** flowrt modes: the file `@flowrt/engine` resolved to in the server's process. */
  engine?: string;
  /** Where deliveries are posted. */
  url: string;
  /** CPU time the server process has used so far (user + system), in µs. */
  cpuUs(): Promise<number>;
  stop(): Promise<void>;
}

export interface StartOptions {
  /** Run this checkout's server on that tree's built packages (the "before" of a before/after run). */
  baseline?: BaselineTree;
}

export async function startServer(mode: ServerMode, options: StartOptions = {}): Promise<RunningServer> {
  const { baseline } = options;
  const label = baseline ? `${mode} (baseline)` : mode;
  const child: ChildProcess = fork(baseline ? join(baseline.srcDir, "webhooks-server.ts") : SERVER, [mode], {
    execPath: process.execPath,
    // The built `dist` by default (`run()` builds first); WEBHOOK_BENCH_SOURCE, _CPU_PROF and _NODE_ARGS as documented.
    execArgv: serverExecArgv("WEBHOOK", baseline ? `${mode}-baseline` : mode),
    cwd: baseline?.benchDir ?? BENCH_DIR,
    stdio: ["ignore", "pipe", "pipe", "ipc"],
    env: { ...process.env, NODE_ENV: "production" },
  });
  let engine: string | undefined;
  const port = await new Promise<number>((resolve, reject) => {
    let out = "";
    let err = "";
    child.stdout?.on("data", (chunk: Buffer) => {
      // With extra node flags (traces), the server's output is passed on to this one's stderr.
      if (process.env.WEBHOOK_BENCH_NODE_ARGS) process.stderr.write(chunk);
      // Only the unfinished last line is kept: traces may print kilobytes before `listening`.
      const lines = (out + chunk.toString()).split("\n");
      out = lines.pop() ?? "";
      for (const line of lines) {
        const listening = /^listening (\d+)$/.exec(line);
        if (listening) resolve(Number(listening[1]));
        engine ??= /^engine (.+)$/.exec(line)?.[1];
      }
    });
    child.stderr?.on("data", (chunk: Buffer) => {
      err += chunk.toString();
    });
    child.once("exit", (code) =>
      reject(new Error(`${label} server exited (${code}) before listening:\n${err}`)),
    );
  });
  if (mode.startsWith("flowrt")) {
    // Once per server: which checkout's build it runs, so a before/after run shows it compared two.
    process.stderr.write(`${label}: @flowrt/engine resolved to ${engine}\n`);
    try {
      if (!engine) throw new Error(`${label} server did not say which @flowrt/engine it loaded`);
      assertLoadsFrom(label, engine, baseline);
    } catch (error) {
      child.kill("SIGKILL");
      throw error;
    }
  }
  const path = mode.startsWith("bare") ? "/hook" : "/api/flows/payments/webhooks/stripe";
  let nextId = 0;
  const pending = new Map<number, (cpuUs: number) => void>();
  child.on("message", (message: { type?: string; id?: number; cpuUs?: number }) => {
    if (message?.type !== "usage" || message.id === undefined) return;
    pending.get(message.id)?.(message.cpuUs ?? 0);
    pending.delete(message.id);
  });
  return {
    mode,
    label,
    ...(engine !== undefined ? { engine } : {}),
    url: `http://127.0.0.1:${port}${path}`,
    cpuUs: () =>
      new Promise<number>((resolve) => {
        const id = nextId++;
        pending.set(id, resolve);
        child.send({ type: "usage", id });
      }),
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once("exit", () => resolve());
        child.kill("SIGTERM");
        setTimeout(() => child.kill("SIGKILL"), 5_000).unref();
      }),
  };
}

/** A Stripe-shaped `invoice.paid` delivery of about `bytes` bytes, signed now in the alpha format. */
export function signedDelivery(bytes = 1024): { body: string; headers: Record<string, string> } {
  const base = {
    id: "evt_bench",
    object: "event",
    type: "invoice.paid",
    data: { object: { id: "in_bench", memo: "" } },
  };
  const padding = Math.max(0, bytes - JSON.stringify(base).length);
  base.data.object.memo = "x".repeat(padding);
  const body = JSON.stringify(base);
  const t = Math.floor(Date.now() / 1000);
  const v1 = createHmac("sha256", SECRET).update(`${t}.${body}`).digest("hex");
  return { body, headers: { "content-type": "application/json", "stripe-signature": `t=${t},v1=${v1}` } };
}

export interface LoadResult {
  /** 2xx responses per second. */
  rps: number;
  /** 2xx responses in all. */
  responses: number;
  p50Ms: number;
  p99Ms: number;
  non2xx: number;
  errors: number;
}

/**
 * Posts the signed delivery for `seconds` as fast as `connections` allow (closed loop: throughput). For
 * latency at a fixed rate use `open-loop.ts`: autocannon's `overallRate` sends each second's quota in bursts.
 */
export async function load(
  url: string,
  options: { seconds: number; connections: number },
): Promise<LoadResult> {
  const { body, headers } = signedDelivery();
  const result = await autocannon({
    url,
    method: "POST",
    headers,
    body,
    connections: options.connections,
    duration: options.seconds,
  });
  return {
    rps: result["2xx"] / result.duration,
    responses: result["2xx"],
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    non2xx: result.non2xx,
    errors: result.errors + result.timeouts,
  };
}
