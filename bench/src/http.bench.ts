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
 */
import { cpus } from "node:os";
import type autocannon from "autocannon";
import { type ServerChild, startServer } from "./http-child.js";
import { collectionPath, itemPath, seededKey } from "./http-fixture.js";
import { headers, type LoadResult, load } from "./http-load.js";
import { checkParity } from "./http-parity.js";
import { formatTable } from "./measure.js";

const TARGET_RPS_RATIO = 0.75;
const TARGET_P99_RATIO = 2;

interface RouteSpec {
  name: string;
  requests: (server: ServerChild) => autocannon.Request[];
}

let created = 0;
const random = (n: number) => Math.floor(Math.random() * n);

const routes: RouteSpec[] = [
  {
    name: "GET item state",
    requests: (server) => [
      {
        method: "GET",
        headers: headers(false),
        setupRequest: (req) => ({
          ...req,
          path: itemPath(server.readSessionId, seededKey(random(server.items))),
        }),
      },
    ],
  },
  {
    name: "GET list page (50 items)",
    requests: (server) => [
      {
        method: "GET",
        headers: headers(false),
        setupRequest: (req) => ({
          ...req,
          path: `${collectionPath(server.readSessionId)}?limit=50&offset=${random(server.items - 50)}`,
        }),
      },
    ],
  },
  {
    name: "POST create item",
    requests: (server) => [
      {
        method: "POST",
        path: collectionPath(server.writeSessionId),
        headers: headers(true),
        // Unique topics (the counter is shared by both servers, so neither sees a 409), with a content body.
        setupRequest: (req) => ({
          ...req,
          body: JSON.stringify({ topic: `t${(created++).toString(36)}`, content: "A short note body." }),
        }),
      },
    ],
  },
];

type Measured = LoadResult & { cpuUsPerReq: number };

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};

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

  const servers = { flowrt: await startServer("flowrt"), bare: await startServer("bare") };
  const rows: Record<string, string | number>[] = [];
  const notes: string[] = [];
  try {
    await checkParity(servers.flowrt, servers.bare);
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
      await runOnce(servers.flowrt, warmup);
      await runOnce(servers.bare, warmup);
      const flowrt: Measured[] = [];
      const bare: Measured[] = [];
      for (let i = 0; i < rounds; i++) {
        flowrt.push(await runOnce(servers.flowrt, seconds));
        bare.push(await runOnce(servers.bare, seconds));
      }
      const summary = (results: Measured[]) => ({
        rps: median(results.map((r) => r.reqPerSec)),
        p99: median(results.map((r) => r.p99Ms)),
        cpu: median(results.map((r) => r.cpuUsPerReq)),
      });
      const f = summary(flowrt);
      const b = summary(bare);
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
      notes.push(...problems(`${route.name} flowrt`, flowrt), ...problems(`${route.name} bare`, bare));
    }
    const logs = servers.flowrt.logLines();
    if (logs.length > 0) notes.push(`flowrt server logged ${logs.length} lines; first: ${logs[0]}`);
  } finally {
    await servers.flowrt.close();
    await servers.bare.close();
  }
  return [
    formatTable(rows),
    "",
    `- ${rounds} alternating rounds of ${seconds} s per server and route (after ${warmup} s warm-up each), ` +
      `${connections} connections, pipelining ${pipelining}; medians shown. Node ${process.version}, ` +
      `${cpus().length} CPUs (${cpus()[0]?.model ?? "unknown"}); each server in its own process, autocannon in the parent.`,
    "- CPU µs/req: the server process's user + system CPU time over the run divided by its responses.",
    ...(notes.length > 0 ? notes.map((n) => `- ${n}`) : ["- every response was 2xx; no errors or timeouts."]),
  ].join("\n");
}
