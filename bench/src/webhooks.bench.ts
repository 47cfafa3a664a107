/**
 * Webhook benchmarks, each figure a ratio against a baseline measured in the same run:
 *
 * 1. Verifications per CPU-second of each preset on 1 KiB and 64 KiB bodies beside a bare node:crypto
 *    HMAC + timingSafeEqual doing the same work — target ≥ 0.9×.
 * 2. Ingest throughput (2xx per second) of `POST /api/flows/:flow/webhooks/:provider` through Express +
 *    `createFlowRouter(host)` with an instant handler, beside a bare Express route that reads the raw body,
 *    verifies it with the same preset and answers 202 — target ≥ 0.6×.
 * 3. The 202's p99 latency at a fixed request rate under a 2-second handler beside its p99 under an instant
 *    one — target within 1.2×. The load is open-loop and evenly spaced (`open-loop.ts`), not autocannon's
 *    `overallRate`, which sends each connection's quota for a second in one burst: its p99 measured the
 *    queue inside the burst. The rate is half the ingest capacity measured in (2), capped at 1000/s; each
 *    round is preceded by a few seconds of the same load, unmeasured, so both sides are measured in the
 *    steady state (a 2 s handler's runs in flight, heaps grown back after the idle time between rounds).
 *
 * Servers run in child processes on the packages' built `dist` (built first; `WEBHOOK_BENCH_SOURCE=1`
 * runs the TypeScript sources through tsx instead); autocannon (throughput) and the open-loop generator
 * (latency) drive them from this process. Rounds alternate between the two sides of each comparison so
 * that load from elsewhere on the machine lands on both. `BENCH_WEBHOOK_SECONDS` (default 5) sets the
 * length of one load round, `WEBHOOK_BENCH_ROUNDS` (default 3) the rounds per side;
 * `WEBHOOK_BENCH_CPU_PROF=<dir>` writes a CPU profile of every server; `WEBHOOK_BENCH_SECTIONS` (default
 * `verify,ingest,latency`) picks sections (without `ingest`, the latency rate is the 1000/s cap);
 * `WEBHOOK_LATENCY_RATE` sets the latency rate outright and `WEBHOOK_LATENCY_WARMUP_SECONDS` (default 6) the load
 * each server takes before the latency rounds. The latency section also measures the same pair
 * of handlers behind a bare Express route (`bare-run`, `bare-slow`): what runs in flight cost any server.
 *
 * Before and after: with `BENCH_BASELINE=<git rev>` the ingest and latency sections also start every flowrt
 * server on that revision's built packages (`baseline-tree.ts`), in the same rotating rounds, and the ingest
 * section adds a before/after table (`before-after.ts`); the latency section a row pair and ratio for it.
 */
import { execFileSync } from "node:child_process";
import { cpus, loadavg } from "node:os";
import { relative } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { fileURLToPath } from "node:url";
import { type BaselineTree, baselineTree, describeBaseline } from "./baseline-tree.js";
import { beforeAfterTable, median, rotate } from "./before-after.js";
import { formatTable } from "./measure.js";
import { type OpenLoopResult, openLoop } from "./open-loop.js";
import {
  type LoadResult,
  load,
  type RunningServer,
  type ServerMode,
  signedDelivery,
  startServer,
} from "./webhooks-load.js";
import { benchVerifiers } from "./webhooks-verify.js";

/** Rounds per side of each comparison; figures are medians over them. */
const ROUNDS = Number(process.env.WEBHOOK_BENCH_ROUNDS ?? 3);
const REPO_ROOT = fileURLToPath(new URL("../..", import.meta.url));

type Measured = LoadResult & { cpuUsPerReq: number };
/**
 * Seconds of load before the latency rounds: by default the retention horizon of `webhooks-server.ts` (5 s), and
 * one more; `WEBHOOK_LATENCY_WARMUP_SECONDS` sets it.
 */
const LATENCY_WARMUP_SECONDS = Number(process.env.WEBHOOK_LATENCY_WARMUP_SECONDS ?? 6);
/** Unmeasured seconds at the start of each latency round: longer than the slow handler's 2 s. */
const ROUND_WARMUP_SECONDS = 3;
const CONNECTIONS = 32;

const verdict = (ratio: number, target: number, atLeast: boolean) =>
  `${ratio.toFixed(2)}× ${(atLeast ? ratio >= target : ratio <= target) ? "met" : "MISSED"} (target ${atLeast ? "≥" : "≤"} ${target}×)`;

/** A load run's result, refused (figures discarded) when any answer was not 2xx or any request failed. */
function checked<T extends { non2xx: number; errors: number }>(label: string, result: T): T {
  if (result.non2xx > 0 || result.errors > 0) {
    throw new Error(
      `${label}: ${result.non2xx} non-2xx answers and ${result.errors} errors; figures discarded`,
    );
  }
  return result;
}

function verifySection(): string {
  const cases = benchVerifiers();
  const rows = cases.map((c) => ({
    preset: c.preset,
    body: c.bytes === 1024 ? "1 KiB" : "64 KiB",
    "preset verifications/s": Math.round(c.presetOps),
    "bare HMAC + timingSafeEqual/s": Math.round(c.bareOps),
    ratio: verdict(c.ratio, 0.9, true),
  }));
  return ["### Verifications per CPU-second (median of 15 interleaved pairs)", "", formatTable(rows)].join(
    "\n",
  );
}

async function ingestSection(
  seconds: number,
  tree: BaselineTree | undefined,
): Promise<{ markdown: string; flowrtRps: number }> {
  const servers: RunningServer[] = [];
  try {
    const bare = await startServer("bare");
    servers.push(bare);
    const flowrt = await startServer("flowrt-instant");
    servers.push(flowrt);
    const baseline = tree ? await startServer("flowrt-instant", { baseline: tree }) : undefined;
    if (baseline) servers.push(baseline);
    // Warm-up: JIT and connection pools on every side.
    for (const server of servers) {
      checked(`warm-up ${server.label}`, await load(server.url, { seconds: 2, connections: CONNECTIONS }));
    }
    const runs = new Map<RunningServer, Measured[]>(servers.map((server) => [server, []]));
    for (let round = 0; round < ROUNDS; round++) {
      // Each server takes each place in turn (with two: bare first, then flowrt first, and so on).
      for (const server of rotate(servers, round)) {
        const before = await server.cpuUs();
        const result = checked(server.label, await load(server.url, { seconds, connections: CONNECTIONS }));
        // Runs the 202s started finish within the round's CPU time: let them settle before reading it.
        await sleep(250);
        const cpuUsPerReq = ((await server.cpuUs()) - before) / Math.max(1, result.responses);
        runs.get(server)!.push({ ...result, cpuUsPerReq });
      }
    }
    const bareRuns = runs.get(bare)!;
    const flowrtRuns = runs.get(flowrt)!;
    const bareRps = median(bareRuns.map((r) => r.rps));
    const flowrtRps = median(flowrtRuns.map((r) => r.rps));
    const row = (server: string, results: Measured[]) => ({
      server,
      "2xx/s (median)": Math.round(median(results.map((r) => r.rps))),
      "p99 ms": median(results.map((r) => r.p99Ms)),
      "CPU µs/req": Math.round(median(results.map((r) => r.cpuUsPerReq))),
    });
    const rows = [
      row("bare Express: raw body, alphaWebhookVerifier, 202", bareRuns),
      row("flowrt: createFlowRouter, instant handler", flowrtRuns),
      ...(baseline && tree
        ? [row(`flowrt (baseline ${describeBaseline(tree)}): the same`, runs.get(baseline)!)]
        : []),
    ];
    const figures = (results: Measured[]) => ({
      rps: results.map((r) => r.rps),
      cpuUsPerReq: results.map((r) => r.cpuUsPerReq),
    });
    return {
      flowrtRps,
      markdown: [
        `### Ingest throughput (${CONNECTIONS} connections, ${ROUNDS} × ${seconds} s rounds per side, 1 KiB signed body)`,
        "",
        formatTable(rows),
        "",
        `- flowrt / bare: ${verdict(flowrtRps / bareRps, 0.6, true)}`,
        "- CPU µs/req: the server process's user + system CPU time over a round (and 250 ms after it, so the runs its 202s started are counted) divided by its 2xx responses; median of rounds.",
        `- ${cpus().length} CPUs (${cpus()[0]?.model ?? "unknown"}), Node ${process.version}, load average ${loadavg()[0]!.toFixed(2)} at the end.`,
        ...(baseline && tree
          ? [
              `- @flowrt/engine: ${[flowrt, baseline].map((s) => `${s.label} from \`${relative(REPO_ROOT, s.engine ?? "?")}\``).join(", ")}.`,
              "",
              beforeAfterTable(describeBaseline(tree), [
                {
                  route: "POST webhook delivery (ingest)",
                  baseline: figures(runs.get(baseline)!),
                  current: figures(flowrtRuns),
                  bare: figures(bareRuns),
                },
              ]),
            ]
          : []),
      ].join("\n"),
    };
  } finally {
    await Promise.all(servers.map((s) => s.stop()));
  }
}

interface LatencyPair {
  instant: OpenLoopResult[];
  slow: OpenLoopResult[];
}

/** An instant-handler server and its 2 s-handler twin, on this checkout or on a baseline tree. */
interface LatencySide {
  modes: [instant: ServerMode, slow: ServerMode];
  baseline?: BaselineTree;
}

/**
 * Alternating open-loop rounds against every side's instant-handler server and its 2 s-handler twin; one pair of
 * results per side, in order. Each server takes each place in the rounds in turn (one side: instant first, then
 * slow first, and so on).
 */
async function latencyPairs(seconds: number, rate: number, sides: LatencySide[]): Promise<LatencyPair[]> {
  const servers: RunningServer[] = [];
  const { body, headers } = signedDelivery();
  const loadAt = (url: string, roundSeconds: number, warmupSeconds = 0) =>
    openLoop({ url, headers, body, rate, seconds: roundSeconds, warmupSeconds, connections: CONNECTIONS });
  try {
    const results = new Map<RunningServer, OpenLoopResult[]>();
    const pairs: { instant: RunningServer; slow: RunningServer }[] = [];
    for (const side of sides) {
      const options = side.baseline ? { baseline: side.baseline } : {};
      const instant = await startServer(side.modes[0], options);
      servers.push(instant);
      const slow = await startServer(side.modes[1], options);
      servers.push(slow);
      pairs.push({ instant, slow });
    }
    // Warm-up past the servers' retention horizon (finished requests are kept 5 s, at most 5000): at the
    // latency rate the store, and the heap with it, only reach their steady size after that long, and a
    // first round that still grows them measured a p99 several times the later rounds'.
    for (const server of servers) {
      checked(`warm-up ${server.label}`, await loadAt(server.url, LATENCY_WARMUP_SECONDS));
      results.set(server, []);
    }
    await sleep(2_500); // let the slow servers' warm-up handlers finish
    const slowOnes = new Set(pairs.map((pair) => pair.slow));
    for (let round = 0; round < ROUNDS; round++) {
      for (const server of rotate(servers, round)) {
        // Each round starts with unmeasured load: a server idle since its last round (up to 25 s here) has
        // let its heap shrink, and a 2 s handler's runs reach their steady number (rate × 2 s) only after 2 s.
        const result = checked(server.label, await loadAt(server.url, seconds, ROUND_WARMUP_SECONDS));
        results.get(server)!.push(result);
        // Handlers still sleeping on a slow server finish before the next one is measured.
        if (slowOnes.has(server)) await sleep(2_500);
      }
    }
    return pairs.map((pair) => ({ instant: results.get(pair.instant)!, slow: results.get(pair.slow)! }));
  } finally {
    await Promise.all(servers.map((s) => s.stop()));
  }
}

async function latencySection(
  seconds: number,
  rate: number,
  tree: BaselineTree | undefined,
): Promise<string> {
  const flowrtModes: LatencySide["modes"] = ["flowrt-instant", "flowrt-slow"];
  const [flowrt, baseline] = await latencyPairs(seconds, rate, [
    { modes: flowrtModes },
    ...(tree ? [{ modes: flowrtModes, baseline: tree }] : []),
  ]);
  // The same comparison without flowrt: what a 2 s handler in flight costs the 202s of a bare route.
  const [bare] = await latencyPairs(seconds, rate, [{ modes: ["bare-run", "bare-slow"] }]);
  if (!flowrt || !bare) throw new Error("latency: a side returned no results");
  const row = (server: string, handler: string, runs: OpenLoopResult[]) => ({
    server,
    handler,
    "2xx/s": Math.round(median(runs.map((r) => r.rps))),
    "p50 ms": median(runs.map((r) => r.p50Ms)).toFixed(2),
    "p99 ms": median(runs.map((r) => r.p99Ms)).toFixed(2),
    "p99 ms from schedule": median(runs.map((r) => r.correctedP99Ms)).toFixed(2),
    "p99 ms per round": runs.map((r) => r.p99Ms.toFixed(2)).join(", "),
  });
  const p99 = (runs: OpenLoopResult[]) => median(runs.map((r) => r.p99Ms));
  const corrected = (runs: OpenLoopResult[]) => median(runs.map((r) => r.correctedP99Ms));
  const ratio = (pair: LatencyPair) => p99(pair.slow) / p99(pair.instant);
  const flowrtRatio = ratio(flowrt);
  const bareRatio = ratio(bare);
  const all = [flowrt, bare, ...(baseline ? [baseline] : [])].flatMap((pair) => [
    ...pair.instant,
    ...pair.slow,
  ]);
  const lag = Math.max(...all.map((r) => r.sendLagP99Ms));
  const baselineName = tree ? `flowrt (baseline ${describeBaseline(tree)})` : "";
  return [
    `### 202 latency under a slow handler (open loop, ${rate} requests/s evenly spaced, ${LATENCY_WARMUP_SECONDS} s warm-up, then ${ROUNDS} × ${seconds} s rounds per side, each after ${ROUND_WARMUP_SECONDS} s unmeasured)`,
    "",
    formatTable([
      row("flowrt", "instant", flowrt.instant),
      row("flowrt", "2 s", flowrt.slow),
      ...(baseline
        ? [row(baselineName, "instant", baseline.instant), row(baselineName, "2 s", baseline.slow)]
        : []),
      row("bare", "instant", bare.instant),
      row("bare", "2 s", bare.slow),
    ]),
    "",
    `- flowrt: p99 with a 2 s handler / p99 with an instant one: ${verdict(flowrtRatio, 1.2, false)}; from the schedule: ${(corrected(flowrt.slow) / corrected(flowrt.instant)).toFixed(2)}×`,
    ...(baseline
      ? [
          `- ${baselineName}, in the same rounds: ${verdict(ratio(baseline), 1.2, false)}; from the schedule: ${(corrected(baseline.slow) / corrected(baseline.instant)).toFixed(2)}×; ` +
            `instant-handler p99 current ÷ baseline: ${(p99(flowrt.instant) / p99(baseline.instant)).toFixed(2)}×`,
        ]
      : []),
    `- bare (a raw-body Express route that verifies, answers 202 and runs the same handler on the parsed payload in the background): ${bareRatio.toFixed(2)}×; from the schedule: ${(corrected(bare.slow) / corrected(bare.instant)).toFixed(2)}×`,
    "- latency: from the request written to the socket to the end of the 202 (`performance.now()`); " +
      "from the schedule: from the time the request was due (coordinated-omission corrected). " +
      `Medians of rounds; the generator sent its requests at most ${lag.toFixed(2)} ms late (p99 of every round).`,
  ].join("\n");
}

export async function run(): Promise<string> {
  // The servers run the packages' built output (see webhooks-load.ts): build it first (turbo, cached).
  if (!process.env.WEBHOOK_BENCH_SOURCE) {
    execFileSync("pnpm", ["build"], { cwd: REPO_ROOT, stdio: ["ignore", "ignore", "inherit"] });
  }
  const seconds = Number(process.env.BENCH_WEBHOOK_SECONDS ?? 5);
  const sections = new Set((process.env.WEBHOOK_BENCH_SECTIONS ?? "verify,ingest,latency").split(","));
  // Before the verifiers: preparing a new baseline (install, build) is no load to measure them beside.
  const tree = sections.has("ingest") || sections.has("latency") ? await baselineTree() : undefined;
  const parts: string[] = [];
  if (sections.has("verify")) parts.push(verifySection());
  // Without the ingest section, the latency section runs at the cap (capacity is far above it here).
  let rate = 1_000;
  if (sections.has("ingest")) {
    const ingest = await ingestSection(seconds, tree);
    parts.push(ingest.markdown);
    // Half the measured capacity: a rate the server sustains, so latency is service time, not queueing.
    rate = Math.max(50, Math.min(1_000, Math.round(ingest.flowrtRps / 2 / 50) * 50));
  }
  if (process.env.WEBHOOK_LATENCY_RATE) rate = Number(process.env.WEBHOOK_LATENCY_RATE);
  if (sections.has("latency")) parts.push(await latencySection(seconds, rate, tree));
  return parts.join("\n\n");
}
