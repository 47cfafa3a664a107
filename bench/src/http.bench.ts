/**
 * HTTP throughput of three client routes, flowrt (Express adapter, memory store) beside a bare Express 5
 * app doing the same work on a Map: item-state GET, a 50-item list page and POST create. Each server runs
 * in its own child process; autocannon drives it from this one with the same connections and pipelining.
 * First both must answer each route with the same status and JSON. After a warm-up of each, the two are
 * run alternately (flowrt, bare, flowrt, bare, …) and the medians compared. Target: every flowrt route at
 * ≥ 0.75× the bare route's requests per second, p99 within 2×.
 *
 * Environment: HTTP_SECONDS (per measured run, default 10), HTTP_WARMUP_SECONDS (3), HTTP_ROUNDS (3),
 * HTTP_CONNECTIONS (10), HTTP_PIPELINING (1), HTTP_BENCH_ITEMS (items in the read session, 10000),
 * HTTP_ROUTES (only the routes whose name contains one of these comma-separated words, e.g. `create`).
 *
 * Before and after: with BENCH_BASELINE=<git rev> a third server, "flowrt (baseline)", runs the same app on that
 * revision's built packages (`baseline-tree.ts`); the rounds rotate over the three servers, and a second table
 * compares the baseline with this checkout route by route (`before-after.ts`).
 */
import { cpus } from "node:os";
import { relative } from "node:path";
import { fileURLToPath } from "node:url";
import { baselineTree, describeBaseline } from "./baseline-tree.js";
import { type BeforeAfterRoute, beforeAfterTable, median, rotate } from "./before-after.js";
import { type ServerChild, startServer } from "./http-child.js";
import { type LoadResult, load } from "./http-load.js";
import { checkParity } from "./http-parity.js";
import { httpRoutes as routes } from "./http-routes.js";
import { type TelemetryVariant, telemetryVariant } from "./http-telemetry.js";
import { formatTable } from "./measure.js";

const TARGET_RPS_RATIO = 0.75;
const TARGET_P99_RATIO = 2;
const REPO_ROOT = fileURLToPath(new URL("../..", import.meta.url));

type Measured = LoadResult & { cpuUsPerReq: number };

function problems(kind: string, results: LoadResult[]): string[] {
  const out: string[] = [];
  for (const r of results) {
    const bad = r.non2xx + r.errors + r.timeouts;
    if (bad > 0) {
      out.push(
        `${kind}: ${r.non2xx} non-2xx, ${r.errors} errors, ${r.timeouts} timeouts (statuses ${JSON.stringify(r.statusCodes)})`,
      );
    }
  }
  return out;
}

export async function run(): Promise<string> {
  const seconds = Number(process.env.HTTP_SECONDS ?? 10);
  const warmup = Number(process.env.HTTP_WARMUP_SECONDS ?? 3);
  const rounds = Number(process.env.HTTP_ROUNDS ?? 3);
  const connections = Number(process.env.HTTP_CONNECTIONS ?? 10);
  const pipelining = Number(process.env.HTTP_PIPELINING ?? 1);
  const tree = await baselineTree();

  const started: ServerChild[] = [];
  const start = async (...args: Parameters<typeof startServer>) => {
    const server = await startServer(...args);
    started.push(server);
    return server;
  };
  const rows: Record<string, string | number>[] = [];
  const beforeAfter: BeforeAfterRoute[] = [];
  const notes: string[] = [];
  const telemetryRows: Record<string, string | number>[] = [];
  try {
    const flowrt = await start("flowrt");
    // HTTP_TELEMETRY=sdk,sdk-stores: the same flowrt server again per variant, measured in the same rounds.
    const variants = new Map<ServerChild, TelemetryVariant>();
    for (const name of process.env.HTTP_TELEMETRY?.split(",").filter(Boolean) ?? []) {
      const variant = telemetryVariant(name);
      if (variant !== "api") variants.set(await start("flowrt", { HTTP_BENCH_TELEMETRY: variant }), variant);
    }
    const bare = await start("bare");
    const baseline = tree ? await start("flowrt", {}, { baseline: tree }) : undefined;
    await checkParity(flowrt, bare);
    if (baseline) await checkParity(baseline, bare, true);
    const only = process.env.HTTP_ROUTES?.split(",").filter(Boolean);
    const chosen = only ? routes.filter((r) => only.some((word) => r.name.includes(word))) : routes;
    for (const route of chosen) {
      // CPU time the server spent per response: robust to other load on the machine, unlike req/s.
      const runOnce = async (server: ServerChild, durationSec: number) => {
        const before = await server.usage();
        const result = await load({
          url: server.url,
          connections,
          pipelining,
          durationSec,
          requests: route.requests(server),
        });
        const after = await server.usage();
        return { ...result, cpuUsPerReq: (after.cpuUs - before.cpuUs) / result.responses };
      };
      const measured = new Map<ServerChild, Measured[]>(started.map((server) => [server, []]));
      for (const server of started) await runOnce(server, warmup);
      for (let i = 0; i < rounds; i++) {
        // Without a baseline: flowrt, then bare, every round, as before. With one, each server takes each
        // place in turn, so neither flowrt side always runs right after the other.
        const order = baseline
          ? rotate([baseline, flowrt, bare, ...variants.keys()], i)
          : variants.size > 0
            ? rotate([flowrt, bare, ...variants.keys()], i)
            : [flowrt, bare];
        for (const server of order) measured.get(server)!.push(await runOnce(server, seconds));
      }
      const summary = (results: Measured[]) => ({
        rps: median(results.map((r) => r.reqPerSec)),
        p99: median(results.map((r) => r.p99Ms)),
        cpu: median(results.map((r) => r.cpuUsPerReq)),
      });
      const f = summary(measured.get(flowrt)!);
      const b = summary(measured.get(bare)!);
      const ratio = f.rps / b.rps;
      const p99Ratio = f.p99 / b.p99;
      const met = ratio >= TARGET_RPS_RATIO && p99Ratio <= TARGET_P99_RATIO;
      rows.push({
        route: route.name,
        "flowrt req/s": Math.round(f.rps),
        "bare req/s": Math.round(b.rps),
        "req/s ratio": ratio,
        "flowrt p99 ms": f.p99,
        "bare p99 ms": b.p99,
        "p99 ratio": p99Ratio,
        [`target (≥ ${TARGET_RPS_RATIO}×, p99 ≤ ${TARGET_P99_RATIO}×)`]: met ? "met" : "MISSED",
        "flowrt CPU µs/req": Math.round(f.cpu),
        "bare CPU µs/req": Math.round(b.cpu),
      });
      for (const [server, variant] of variants) {
        const v = summary(measured.get(server)!);
        const perRound = measured
          .get(server)!
          .map((r, round) => (r.reqPerSec / measured.get(flowrt)![round]!.reqPerSec).toFixed(2));
        telemetryRows.push({
          route: route.name,
          variant,
          "req/s": Math.round(v.rps),
          "api req/s": Math.round(f.rps),
          "req/s ÷ api": v.rps / f.rps,
          "CPU µs/req": Math.round(v.cpu),
          "api CPU µs/req": Math.round(f.cpu),
          "per round ÷ api": perRound.join(", "),
        });
      }
      if (baseline) {
        const figures = (server: ServerChild) => ({
          rps: measured.get(server)!.map((r) => r.reqPerSec),
          cpuUsPerReq: measured.get(server)!.map((r) => r.cpuUsPerReq),
        });
        beforeAfter.push({
          route: route.name,
          baseline: figures(baseline),
          current: figures(flowrt),
          bare: figures(bare),
        });
      }
      for (const server of started)
        notes.push(...problems(`${route.name} ${server.label}`, measured.get(server)!));
    }
    for (const server of started) {
      const logs = server.logLines();
      if (logs.length > 0)
        notes.push(`${server.label} server logged ${logs.length} lines; first: ${logs[0]}`);
    }
  } finally {
    for (const server of started) await server.close();
  }
  const flowrtServers = started.filter((server) => server.kind === "flowrt");
  return [
    formatTable(rows),
    "",
    `- ${rounds} ${tree ? "rounds rotating over the three servers" : "alternating rounds"} of ${seconds} s per server and route (after ${warmup} s warm-up each), ` +
      `${connections} connections, pipelining ${pipelining}; medians shown. Node ${process.version}, ` +
      `${cpus().length} CPUs (${cpus()[0]?.model ?? "unknown"}); each server in its own process, autocannon in the parent.`,
    "- CPU µs/req: the server process's user + system CPU time over the run divided by its responses.",
    ...(notes.length > 0 ? notes.map((n) => `- ${n}`) : ["- every response was 2xx; no errors or timeouts."]),
    ...(telemetryRows.length > 0
      ? [
          "",
          "Variants (`HTTP_TELEMETRY`): `api` is the flowrt server above (OpenTelemetry API, no SDK, access line off);",
          "`sdk` registers the trace and metrics SDKs with exporters that drop everything; `sdk-stores` adds store spans;",
          "`access-log` turns the engine's access line on (JSON lines at `info` to /dev/null).",
          "",
          formatTable(telemetryRows),
        ]
      : []),
    ...(tree
      ? [
          `- @flowrt/engine: ${flowrtServers.map((s) => `${s.label} from \`${relative(REPO_ROOT, s.engine)}\``).join(", ")}.`,
          "",
          beforeAfterTable(describeBaseline(tree), beforeAfter),
        ]
      : []),
  ].join("\n");
}
