/**
 * HTTP throughput of four client routes, on up to four servers each in its own child process: flowrt (Express
 * adapter, memory store), a bare Express 5 app doing the same work on Maps, the engine alone (its
 * transport-neutral handler on a minimal `node:http` wrapper, `flowrt-node`) and a bare `node:http` server doing the
 * bare app's work (`bare-node`). Routes: item-state GET, a 50-item list page, POST create and the session snapshot.
 * autocannon drives each server from this process with the same connections and pipelining.
 *
 * First every server must answer each route with the same status and JSON as a bare one, and refuse the same
 * requests with the same status. The load average is printed at the start. Per route, after warm-up rounds (every
 * server in turn), the measured rounds rotate the servers (each takes each place in turn) and medians are compared:
 * the first table is issue 6's (flowrt ≥ 0.75× the bare Express route's req/s, p99 within 2×), the second issue
 * 20's (`http-peers.ts`: flowrt ÷ Express ≥ 0.9×, flowrt-node ÷ bare-node ≥ 0.75×, medians with the per-round spread).
 *
 * Environment: HTTP_SECONDS (per measured run, default 10), HTTP_WARMUP_SECONDS (3), HTTP_WARMUP_ROUNDS (1),
 * HTTP_ROUNDS (3), HTTP_CONNECTIONS (32), HTTP_PIPELINING (1), HTTP_BENCH_ITEMS (items in the read session, 10000),
 * HTTP_ROUTES (only the routes whose name contains one of these comma-separated words, e.g. `create`),
 * HTTP_SERVERS (which of `flowrt,bare,flowrt-node,bare-node` to start; all by default),
 * HTTP_BENCH_CPU_PROF=<dir> (a `.cpuprofile` per server, `server-args.ts`; read with `profile-share.ts`).
 *
 * Before and after: with BENCH_BASELINE=<git rev> another server, "flowrt (baseline)", runs the same app on that
 * revision's built packages (`baseline-tree.ts`); the rounds rotate over all servers, and a further table
 * compares the baseline with this checkout route by route (`before-after.ts`).
 */
import { cpus, loadavg } from "node:os";
import { relative } from "node:path";
import { fileURLToPath } from "node:url";
import { baselineTree, describeBaseline } from "./baseline-tree.js";
import { type BeforeAfterRoute, beforeAfterTable, median, rotate } from "./before-after.js";
import { type ServerChild, startServer } from "./http-child.js";
import { isFlowrtKind, SERVER_KINDS, type ServerKind } from "./http-fixture.js";
import { type LoadResult, load } from "./http-load.js";
import { checkParity } from "./http-parity.js";
import { type PeerRoute, peerTable, type Rounds } from "./http-peers.js";
import { httpRoutes as routes } from "./http-routes.js";
import { type TelemetryVariant, telemetryVariant } from "./http-telemetry.js";
import { formatTable } from "./measure.js";

const TARGET_RPS_RATIO = 0.75;
const TARGET_P99_RATIO = 2;
const REPO_ROOT = fileURLToPath(new URL("../..", import.meta.url));

type Measured = LoadResult & { cpuUsPerReq: number };

const loadAverage = () =>
  loadavg()
    .map((load) => load.toFixed(2))
    .join(", ");

/** HTTP_SERVERS: the kinds to start, in {@link SERVER_KINDS} order. */
function chosenKinds(): ServerKind[] {
  const named = process.env.HTTP_SERVERS?.split(",").filter(Boolean);
  if (!named) return [...SERVER_KINDS];
  const unknown = named.find((name) => !SERVER_KINDS.includes(name as ServerKind));
  if (unknown !== undefined)
    throw new Error(`HTTP_SERVERS: "${unknown}" is none of ${SERVER_KINDS.join(", ")}`);
  return SERVER_KINDS.filter((kind) => named.includes(kind));
}

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
  const warmupRounds = Number(process.env.HTTP_WARMUP_ROUNDS ?? 1);
  const rounds = Number(process.env.HTTP_ROUNDS ?? 3);
  const connections = Number(process.env.HTTP_CONNECTIONS ?? 32);
  const pipelining = Number(process.env.HTTP_PIPELINING ?? 1);
  const profileDir = process.env.HTTP_BENCH_CPU_PROF;
  const loadAtStart = loadAverage();
  process.stderr.write(`http: load average at the start ${loadAtStart} (1, 5, 15 min)\n`);
  const kinds = chosenKinds();
  const variantNames = process.env.HTTP_TELEMETRY?.split(",").filter(Boolean) ?? [];
  const tree = await baselineTree();
  if (variantNames.length > 0 && !kinds.includes("flowrt"))
    throw new Error("HTTP_TELEMETRY compares with the flowrt server: keep flowrt in HTTP_SERVERS");
  if (tree && !(kinds.includes("flowrt") && kinds.includes("bare")))
    throw new Error("BENCH_BASELINE compares with flowrt and bare: keep both in HTTP_SERVERS");

  const started: ServerChild[] = [];
  const start = async (...args: Parameters<typeof startServer>) => {
    const server = await startServer(...args);
    started.push(server);
    return server;
  };
  const rows: Record<string, string | number>[] = [];
  const beforeAfter: BeforeAfterRoute[] = [];
  const peers: PeerRoute[] = [];
  const notes: string[] = [];
  const telemetryRows: Record<string, string | number>[] = [];
  /** Responses each server gave over the whole run, warm-ups included (to divide a profile's time by). */
  const served = new Map<ServerChild, number>();
  try {
    const byKind = new Map<ServerKind, ServerChild>();
    for (const kind of kinds) byKind.set(kind, await start(kind));
    const flowrt = byKind.get("flowrt");
    const bare = byKind.get("bare");
    // HTTP_TELEMETRY=sdk,sdk-stores: the same flowrt server again per variant, measured in the same rounds.
    const variants = new Map<ServerChild, TelemetryVariant>();
    for (const name of variantNames) {
      const variant = telemetryVariant(name);
      if (variant !== "api") variants.set(await start("flowrt", { HTTP_BENCH_TELEMETRY: variant }), variant);
    }
    const baseline = tree ? await start("flowrt", {}, { baseline: tree }) : undefined;
    // Every server answers as a bare one does (the Express one when it runs), the bare ones alike too.
    const reference = bare ?? byKind.get("bare-node");
    if (reference) {
      for (const server of started)
        if (server !== reference) await checkParity(server, reference, server === baseline);
    } else notes.push("no bare server ran, so no answer was checked against one.");
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
        served.set(server, (served.get(server) ?? 0) + result.responses);
        return { ...result, cpuUsPerReq: (after.cpuUs - before.cpuUs) / result.responses };
      };
      const measured = new Map<ServerChild, Measured[]>(started.map((server) => [server, []]));
      // Warm-up rounds, every server in turn, then the measured rounds: each server takes each place in turn.
      for (let i = 0; i < warmupRounds; i++)
        for (const server of rotate(started, i)) await runOnce(server, warmup);
      for (let i = 0; i < rounds; i++) {
        for (const server of rotate(started, i)) measured.get(server)!.push(await runOnce(server, seconds));
      }
      const summary = (results: Measured[]) => ({
        rps: median(results.map((r) => r.reqPerSec)),
        p99: median(results.map((r) => r.p99Ms)),
        cpu: median(results.map((r) => r.cpuUsPerReq)),
      });
      const figures = (server: ServerChild): Rounds => ({
        rps: measured.get(server)!.map((r) => r.reqPerSec),
        cpuUsPerReq: measured.get(server)!.map((r) => r.cpuUsPerReq),
      });
      peers.push({
        route: route.name,
        servers: new Map([...byKind].map(([kind, server]) => [kind, figures(server)])),
      });
      if (flowrt && bare) {
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
      }
      if (flowrt) {
        for (const [server, variant] of variants) {
          const v = summary(measured.get(server)!);
          const f = summary(measured.get(flowrt)!);
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
      }
      if (baseline && flowrt && bare) {
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
  const flowrtServers = started.filter((server) => isFlowrtKind(server.kind));
  const peersTable = peerTable(peers);
  return [
    `_Load average at the start: ${loadAtStart}; at the end: ${loadAverage()} (1, 5, 15 min)._`,
    "",
    ...(rows.length > 0 ? [formatTable(rows), ""] : []),
    `- ${rounds} rounds rotating over the ${started.length} servers (${started.map((s) => s.label).join(", ")}) of ${seconds} s per server and route, ` +
      `after ${warmupRounds} warm-up round(s) of ${warmup} s each; ` +
      `${connections} connections, pipelining ${pipelining}; medians shown. Node ${process.version}, ` +
      `${cpus().length} CPUs (${cpus()[0]?.model ?? "unknown"}); each server in its own process, autocannon in the parent.`,
    "- CPU µs/req: the server process's user + system CPU time over the run divided by its responses.",
    ...(notes.length > 0 ? notes.map((n) => `- ${n}`) : ["- every response was 2xx; no errors or timeouts."]),
    ...(profileDir
      ? [
          `- CPU profiles in \`${profileDir}\` (one \`<server>-<time>.cpuprofile\` per server, written when it stops). ` +
            "Self time by package and folder, per response (warm-ups included; startup left out): " +
            `\`pnpm --filter @flowrt/bench exec tsx src/profile-share.ts ${profileDir} --requests ` +
            `${started.map((s) => `${s.profile}=${served.get(s) ?? 0}`).join(",")}\`.`,
        ]
      : []),
    ...(peersTable ? ["", peersTable] : []),
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
