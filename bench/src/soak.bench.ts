/**
 * Soak: the flowrt server (Express adapter, memory store, its own process) under a steady mix of reads,
 * writes and actions at half its measured capacity for SOAK_SECONDS (default 300). Each connection cycles
 * through: GET item state, GET a 50-item list page, POST create (its own topic), PATCH that item's
 * content, POST the `touch` action (202; the action runs after the response), DELETE the item again, so
 * the collection stays the same size and memory has no reason to grow. Target: zero errors (connection
 * errors, timeouts, unexpected statuses, failed actions) and resident memory growing less than 10 % after
 * the first minute.
 *
 * Environment: SOAK_SECONDS (300), SOAK_CAPACITY_SECONDS (10, the unthrottled run that sets the rate),
 * SOAK_CONNECTIONS (10), SOAK_ITEMS (1000 items in the read session), SOAK_PURGE_MS (30000: finished
 * requests older than this are purged, the application's retention; 0 keeps every request record).
 */
import type autocannon from "autocannon";
import { type ServerChild, startServer } from "./http-child.js";
import { actionPath, collectionPath, itemPath, seededKey } from "./http-fixture.js";
import { headers, type LoadResult, load } from "./http-load.js";
import { formatTable } from "./measure.js";

const SAMPLE_MS = 5_000;
const TARGET_GROWTH = 0.1;
/** Topics cycle through this many names; a connection deletes its item before it creates the next. */
const TOPIC_SLOTS = 4096;

const random = (n: number) => Math.floor(Math.random() * n);
const mib = (bytes: number) => bytes / 1024 / 1024;

interface Cycle {
  topic?: string;
}

/** Responses with a status other than the route's expected one, by `route status`. */
type Unexpected = Map<string, number>;

let runs = 0;

/**
 * One connection's cycle of requests; `context` lives for one pass through the list. Each call is one
 * autocannon run with its own topic names: a run that ends between a create and its delete leaves that
 * item behind, and a later run must not collide with it.
 */
function mix(server: ServerChild, unexpected: Unexpected): autocannon.Request[] {
  const write = server.writeSessionId;
  const run = runs++;
  let slot = 0;
  const expect = (route: string, status: number) => (actual: number) => {
    if (actual !== status)
      unexpected.set(`${route} ${actual}`, (unexpected.get(`${route} ${actual}`) ?? 0) + 1);
  };
  const requests: autocannon.Request[] = [
    {
      method: "GET",
      headers: headers(false),
      setupRequest: (req) => ({
        ...req,
        path: itemPath(server.readSessionId, seededKey(random(server.items))),
      }),
    },
    {
      method: "GET",
      headers: headers(false),
      setupRequest: (req) => ({
        ...req,
        path: `${collectionPath(server.readSessionId)}?limit=50&offset=${random(Math.max(1, server.items - 50))}`,
      }),
    },
    {
      method: "POST",
      path: collectionPath(write),
      headers: headers(true),
      setupRequest: (req, context) => {
        const topic = `items/soak-${run}-${slot++ % TOPIC_SLOTS}`;
        (context as Cycle).topic = topic;
        return { ...req, body: JSON.stringify({ topic, content: "First draft." }) };
      },
    },
    {
      method: "PATCH",
      headers: headers(true),
      body: JSON.stringify({ content: "Second draft, a little longer than the first." }),
      setupRequest: (req, context) => ({
        ...req,
        path: `${itemPath(write, (context as Cycle).topic!)}/content`,
      }),
    },
    {
      method: "POST",
      path: actionPath("touch"),
      headers: headers(true),
      setupRequest: (req) => ({
        ...req,
        body: JSON.stringify({
          sessionId: server.readSessionId,
          input: { topic: seededKey(random(server.items)) },
        }),
      }),
    },
    {
      method: "DELETE",
      headers: headers(false),
      setupRequest: (req, context) => ({ ...req, path: itemPath(write, (context as Cycle).topic!) }),
    },
  ];
  const routes: [string, number][] = [
    ["GET item", 200],
    ["GET page", 200],
    ["POST create", 201],
    ["PATCH content", 200],
    ["POST action", 202],
    ["DELETE", 200],
  ];
  return requests.map((request, i) => ({ ...request, onResponse: expect(...routes[i]!) }));
}

interface Sample {
  atSec: number;
  rssMiB: number;
  heapMiB: number;
}

function errorsOf(result: LoadResult): number {
  return result.errors + result.timeouts + result.non2xx;
}

export async function run(): Promise<string> {
  const seconds = Number(process.env.SOAK_SECONDS ?? 300);
  const capacitySeconds = Number(process.env.SOAK_CAPACITY_SECONDS ?? 10);
  const connections = Number(process.env.SOAK_CONNECTIONS ?? 10);
  const items = process.env.SOAK_ITEMS ?? "1000";
  const purgeMs = process.env.SOAK_PURGE_MS ?? "30000";
  const server = await startServer("flowrt", { HTTP_BENCH_ITEMS: items, HTTP_BENCH_PURGE_MS: purgeMs });
  try {
    const unexpected: Unexpected = new Map();
    await load({ url: server.url, connections, durationSec: 3, requests: mix(server, new Map()) });
    const capacity = await load({
      url: server.url,
      connections,
      durationSec: capacitySeconds,
      requests: mix(server, new Map()),
    });
    const rate = Math.max(1, Math.round(capacity.reqPerSec / 2));

    const samples: Sample[] = [];
    const started = performance.now();
    const sample = async () => {
      const usage = await server.usage();
      samples.push({
        atSec: (performance.now() - started) / 1000,
        rssMiB: mib(usage.rss),
        heapMiB: mib(usage.heapUsed),
      });
    };
    await sample();
    const timer = setInterval(() => void sample(), SAMPLE_MS);
    const soak = await load({
      url: server.url,
      connections,
      durationSec: seconds,
      overallRate: rate,
      requests: mix(server, unexpected),
    });
    clearInterval(timer);
    await sample();
    // Let the last actions finish and one housekeeping pass see them before counting failures.
    await new Promise((resolve) => setTimeout(resolve, SAMPLE_MS + 1_000));
    const final = await server.usage();

    const baselineAt = Math.min(60, seconds / 2);
    const baseline = samples.find((s) => s.atSec >= baselineAt) ?? samples[0]!;
    const last = samples[samples.length - 1]!;
    const after = samples.filter((s) => s.atSec >= baseline.atSec);
    const peak = after.reduce((a, b) => (b.rssMiB > a.rssMiB ? b : a), baseline);
    const growth = (last.rssMiB - baseline.rssMiB) / baseline.rssMiB;
    const peakGrowth = (peak.rssMiB - baseline.rssMiB) / baseline.rssMiB;
    const errors = errorsOf(soak) + final.failedRequests;
    const logs = server.logLines();

    const summary = formatTable([
      {
        "capacity req/s": Math.round(capacity.reqPerSec),
        "soak rate req/s": rate,
        "achieved req/s": Math.round(soak.reqPerSec),
        responses: soak.responses,
        "p50 ms": soak.p50Ms,
        "p99 ms": soak.p99Ms,
        "p99 ms (CO-corrected)": soak.p99CorrectedMs,
        errors,
        [`RSS at ${Math.round(baseline.atSec)} s MiB`]: baseline.rssMiB,
        "RSS at end MiB": last.rssMiB,
        "growth (end)": `${(growth * 100).toFixed(1)} %`,
        "growth (peak)": `${(peakGrowth * 100).toFixed(1)} %`,
        target: errors === 0 && growth < TARGET_GROWTH ? "met" : "MISSED",
      },
    ]);
    const every = Math.max(1, Math.round(30_000 / SAMPLE_MS));
    const series = samples
      .filter((_, i) => i % every === 0 || i === samples.length - 1)
      .map((s) => `${Math.round(s.atSec)} s: ${s.rssMiB.toFixed(0)} MiB (heap ${s.heapMiB.toFixed(0)})`)
      .join(", ");
    return [
      summary,
      "",
      `- ${seconds} s at half the capacity measured over ${capacitySeconds} s (after a 3 s warm-up), ` +
        `${connections} connections; mix per connection: GET item, GET 50-item page, POST create, PATCH content, ` +
        `POST action (202), DELETE. ${items} seeded items; ` +
        (Number(purgeMs) > 0
          ? `finished requests purged after ${purgeMs} ms (the application's retention: the host keeps every request record otherwise).`
          : "finished requests never purged (SOAK_PURGE_MS=0): the host keeps every request record and its events."),
      `- errors: ${soak.errors} connection errors, ${soak.timeouts} timeouts, ${soak.non2xx} non-2xx ` +
        `(statuses ${JSON.stringify(soak.statusCodes)}${unexpected.size > 0 ? `; unexpected: ${[...unexpected].map(([k, n]) => `${k} ×${n}`).join(", ")}` : ""}), ` +
        `${final.failedRequests} failed or aborted actions, ` +
        `${final.unfinishedRequests} actions unfinished at the end; capacity run: ${errorsOf(capacity)} errors.`,
      `- RSS every 30 s: ${series}.`,
      ...(logs.length > 0 ? [`- server logged ${logs.length} lines; first: ${logs[0]}`] : []),
    ].join("\n");
  } finally {
    await server.close();
  }
}
