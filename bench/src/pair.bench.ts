/**
 * `BENCH_BASELINE=<rev> pnpm bench pair`: issue 18's before/after, with both sides in ONE server process.
 *
 * `http.bench.ts` and `webhooks.bench.ts` compare a baseline server and a current server, each in its own
 * process. On a shared machine two processes of the same code can differ by 10–20 % in CPU per request for the
 * whole of their lives (which core they share with whom, where the heap and the code landed), and that difference
 * then reads as a change between revisions. Here one child (`pair-server.ts`) serves both revisions' apps, and
 * the parent loads one side at a time, rotating which goes first in each round; the CPU the child used over a
 * round, divided by the responses, is that side's cost per request. Whatever the process's luck, both sides share
 * it.
 *
 * Routes: the HTTP benchmark's four (`http-routes.ts`: item, list, create, snapshot) and the webhook ingest (a signed 1 KiB delivery, instant
 * handler, retention as in `webhooks-flowrt-app.ts`). The verdict is issue 18's bar on CPU per request: current
 * ÷ baseline at most 1.05 (medians of rounds); throughput is shown beside it.
 *
 * Environment: PAIR_SECONDS (per round and side, default 5), PAIR_WARMUP_SECONDS (3), PAIR_ROUNDS (6),
 * PAIR_ROUTES (comma-separated words; a route runs when its name contains one, e.g. `state,ingest`),
 * PAIR_CONNECTIONS (10), HTTP_BENCH_ITEMS (10000), PAIR_BENCH_CPU_PROF / _NODE_ARGS (`server-args.ts`). With a
 * profile, a note splits the child's JavaScript self time by side (`profile-by-side.ts`).
 */
import { type ChildProcess, fork } from "node:child_process";
import { realpathSync } from "node:fs";
import { cpus } from "node:os";
import { setTimeout as sleep } from "node:timers/promises";
import { fileURLToPath } from "node:url";
import { assertLoadsFrom, type BaselineTree, baselineTree, describeBaseline } from "./baseline-tree.js";
import { MAX_SLOWDOWN, median, rotate } from "./before-after.js";
import { load as loadHttp } from "./http-load.js";
import { httpRoutes } from "./http-routes.js";
import { formatTable } from "./measure.js";
import type { PairReady, PairSide } from "./pair-server.js";
import { samplesBySide } from "./profile-by-side.js";
import { serverExecArgv } from "./server-args.js";
import { load as loadWebhooks } from "./webhooks-load.js";

const SERVER = fileURLToPath(new URL("./pair-server.ts", import.meta.url));
const BENCH_DIR = fileURLToPath(new URL("..", import.meta.url));

interface PairChild {
  sides: PairSide[];
  cpuUs(): Promise<number>;
  close(): Promise<void>;
}

async function startPair(tree: BaselineTree): Promise<PairChild> {
  const child: ChildProcess = fork(SERVER, [tree.srcDir], {
    execPath: process.execPath,
    execArgv: serverExecArgv("PAIR", "pair"),
    cwd: BENCH_DIR,
    env: { ...process.env, NODE_ENV: "production" },
    stdio: ["ignore", "inherit", "inherit", "ipc"],
  });
  const ready = await new Promise<PairReady>((resolve, reject) => {
    child.on("message", (message: PairReady | { type: "error"; message: string }) => {
      if (message.type === "ready") resolve(message);
      else if (message.type === "error")
        reject(new Error(`pair server failed to start:\n${message.message}`));
    });
    child.once("exit", (code) => reject(new Error(`pair server exited (code ${code}) before listening`)));
  });
  for (const side of ready.sides) {
    assertLoadsFrom(side.label, side.engine, side.label === "baseline" ? tree : undefined);
    process.stderr.write(`pair ${side.label}: @flowrt/engine resolved to ${side.engine}\n`);
  }
  let nextId = 0;
  const pending = new Map<number, (cpuUs: number) => void>();
  child.on("message", (message: { type?: string; id?: number; cpuUs?: number }) => {
    if (message.type !== "usage" || message.id === undefined) return;
    pending.get(message.id)?.(message.cpuUs ?? 0);
    pending.delete(message.id);
  });
  return {
    sides: ready.sides,
    cpuUs: () =>
      new Promise<number>((resolve) => {
        const id = nextId++;
        pending.set(id, resolve);
        child.send({ type: "usage", id });
      }),
    close: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once("exit", () => resolve());
        child.send({ type: "close" });
        setTimeout(() => child.kill("SIGKILL"), 5_000).unref();
      }),
  };
}

interface Round {
  rps: number;
  cpuUsPerReq: number;
  bad: number;
  responses: number;
}

/** One route's load against one side: `seconds` of it, returning throughput and 2xx count. */
type Loader = (side: PairSide, seconds: number) => Promise<{ rps: number; responses: number; bad: number }>;

function loaders(connections: number): { name: string; run: Loader; settleMs: number }[] {
  const http = httpRoutes.map((route) => ({
    name: route.name,
    settleMs: 0,
    run: async (side: PairSide, seconds: number) => {
      const r = await loadHttp({
        url: side.httpUrl,
        connections,
        durationSec: seconds,
        requests: route.requests(side),
      });
      return { rps: r.reqPerSec, responses: r.responses, bad: r.non2xx + r.errors + r.timeouts };
    },
  }));
  return [
    ...http,
    {
      name: "POST webhook delivery (ingest)",
      // The runs a round's 202s started finish within this; their CPU is counted with the round.
      settleMs: 250,
      run: async (side, seconds) => {
        const r = await loadWebhooks(side.webhookUrl, { seconds, connections });
        return { rps: r.rps, responses: r.responses, bad: r.non2xx + r.errors };
      },
    },
  ];
}

export async function run(): Promise<string> {
  const tree = await baselineTree();
  // `pnpm bench` runs every benchmark: without a baseline this one has nothing to compare, and says so.
  if (!tree) return "Skipped: `pnpm bench pair` compares two revisions; set `BENCH_BASELINE=<git rev>`.";
  const seconds = Number(process.env.PAIR_SECONDS ?? 5);
  const warmup = Number(process.env.PAIR_WARMUP_SECONDS ?? 3);
  const rounds = Number(process.env.PAIR_ROUNDS ?? 6);
  const connections = Number(process.env.PAIR_CONNECTIONS ?? 10);
  const only = process.env.PAIR_ROUTES?.split(",").filter(Boolean);
  const chosen = loaders(connections).filter((r) => !only || only.some((word) => r.name.includes(word)));
  const pair = await startPair(tree);
  const rows: Record<string, string | number>[] = [];
  const slower: string[] = [];
  const notes: string[] = [];
  /** Responses each side served over the whole run, warm-ups included (for the profile's split). */
  const served = new Map<PairSide, number>();
  try {
    for (const route of chosen) {
      const once = async (side: PairSide, sec: number): Promise<Round> => {
        const before = await pair.cpuUs();
        const r = await route.run(side, sec);
        if (route.settleMs > 0) await sleep(route.settleMs);
        const after = await pair.cpuUs();
        served.set(side, (served.get(side) ?? 0) + r.responses);
        return {
          rps: r.rps,
          cpuUsPerReq: (after - before) / Math.max(1, r.responses),
          bad: r.bad,
          responses: r.responses,
        };
      };
      for (const side of pair.sides) await once(side, warmup);
      const measured = new Map<PairSide, Round[]>(pair.sides.map((side) => [side, []]));
      for (let i = 0; i < rounds; i++) {
        for (const side of rotate(pair.sides, i)) measured.get(side)!.push(await once(side, seconds));
      }
      const [baseline, current] = pair.sides.map((side) => measured.get(side)!) as [Round[], Round[]];
      const cpuB = median(baseline.map((r) => r.cpuUsPerReq));
      const cpuC = median(current.map((r) => r.cpuUsPerReq));
      const ratio = cpuC / cpuB;
      const holds = ratio <= 1 + MAX_SLOWDOWN;
      if (!holds) slower.push(`${route.name} ${ratio.toFixed(3)}×`);
      rows.push({
        route: route.name,
        "baseline CPU µs/req": Math.round(cpuB),
        "current CPU µs/req": Math.round(cpuC),
        "current ÷ baseline CPU": ratio.toFixed(3),
        "per round": current.map((r, j) => (r.cpuUsPerReq / baseline[j]!.cpuUsPerReq).toFixed(2)).join(", "),
        "baseline req/s": Math.round(median(baseline.map((r) => r.rps))),
        "current req/s": Math.round(median(current.map((r) => r.rps))),
        [`≤ ${MAX_SLOWDOWN * 100} % more CPU`]: holds ? "yes" : "NO",
      });
      for (const side of pair.sides) {
        const bad = measured.get(side)!.reduce((sum, r) => sum + r.bad, 0);
        if (bad > 0) notes.push(`${route.name} ${side.label}: ${bad} responses not 2xx or failed`);
      }
    }
  } finally {
    await pair.close();
  }
  const profileDir = process.env.PAIR_BENCH_CPU_PROF;
  if (profileDir) {
    const root = (path: string) => `${realpathSync(path)}/`;
    const split = samplesBySide(
      profileDir,
      root(tree.root),
      root(fileURLToPath(new URL("../..", import.meta.url))),
    );
    const [b, c] = pair.sides.map((side) => served.get(side) ?? 0) as [number, number];
    const perRequest = (samples: number, requests: number) =>
      (samples * split.intervalUs) / Math.max(1, requests);
    const jsB = perRequest(split.baseline, b);
    const jsC = perRequest(split.current, c);
    notes.push(
      `profile (${split.file}): JavaScript self time in each side's own files, whole run: baseline ${jsB.toFixed(1)} µs ` +
        `per request (${split.baseline} samples, ${b} responses), current ${jsC.toFixed(1)} µs (${split.current}, ${c}); ` +
        `current ÷ baseline ${(jsC / jsB).toFixed(3)}; shared (Node, native, GC, idle) ${split.shared} samples`,
    );
  }
  const verdict = slower.length === 0 ? "holds" : `does NOT hold (${slower.join("; ")})`;
  return [
    `Before and after in one server process: baseline (${describeBaseline(tree)}) and this checkout.`,
    "",
    formatTable(rows),
    "",
    `- no route costs more than ${MAX_SLOWDOWN * 100} % more CPU per request (current ÷ baseline, medians of rounds): ${verdict}.`,
    `- ${rounds} rounds of ${seconds} s per side and route (after ${warmup} s warm-up each), the sides taking turns first; ` +
      `${connections} connections; per round: current ÷ baseline of that round. Node ${process.version}, ` +
      `${cpus().length} CPUs (${cpus()[0]?.model ?? "unknown"}); both sides in one child process, the load generator in the parent.`,
    ...(notes.length > 0 ? notes.map((n) => `- ${n}`) : ["- every response was 2xx."]),
  ].join("\n");
}
