/**
 * Webhook ingest against what a team would write instead (issue 20, targets 2 and 3): the same signed Stripe-style
 * delivery posted to flowrt and to its peer, each server in its own child process (`ingest-server.ts`), one server
 * under load at a time, autocannon in this process.
 *
 * - **memory**: flowrt on the memory store (`webhooks-flowrt-app.ts`) against Express + `constructEvent` + an
 *   in-process queue running the same instant handler (`ingest-peer-memory.ts`) — target ≥ 0.8×.
 * - **postgres**: flowrt on `createPostgresStores` against Express + `constructEvent` + graphile-worker `addJob`, its
 *   runner in the same process running the same handler (`ingest-peer-graphile.ts`) — target ≥ 1.0×. Both on one
 *   fresh database made for the run (`ingest-database.ts`), each server in a fresh schema of its own, each with one
 *   pool of `INGEST_POOL` connections.
 *
 * Per server and round: deliveries accepted (2xx) per second of load; runs completed per second, from the start of
 * the load to the end of the backlog it left (a delivery counts when its handler ran and, on Postgres, its flowrt
 * request is `completed` or its graphile-worker job is gone from the table); the server's CPU per delivery over the
 * load and the drain. On Postgres also, per delivery, the database's transactions (`pg_stat_database`, the delta
 * over the load, the drain and a settling wait) and the queries each server sent (counted inside the server).
 *
 * Knobs: `INGEST_STORES` (default `memory,postgres`), `INGEST_SECONDS` (5, per round), `INGEST_ROUNDS` (3, per
 * server), `INGEST_WARMUP_SECONDS` (3, per server, unmeasured), `INGEST_CONNECTIONS` (32, autocannon's),
 * `INGEST_POOL` (10, the `pg` pool of each Postgres server), `INGEST_WORKER_CONCURRENCY` (`INGEST_POOL`,
 * graphile-worker's), `INGEST_STATS_SETTLE_MS` (11000, see below), `INGEST_BENCH_SOURCE`, `INGEST_BENCH_CPU_PROF`,
 * `INGEST_BENCH_NODE_ARGS` (as the other benchmarks' `*_BENCH_*`). With `BENCH_BASELINE=<rev>` every flowrt server
 * also runs on that revision's built packages, in the same rotating rounds ("flowrt (baseline)").
 */
import { execFileSync } from "node:child_process";
import { cpus, loadavg } from "node:os";
import { relative } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { fileURLToPath } from "node:url";
import { type BaselineTree, baselineTree, describeBaseline } from "./baseline-tree.js";
import { median, rotate } from "./before-after.js";
import { type IngestServer, startIngestServer } from "./ingest-child.js";
import { type BenchDatabase, openBenchDatabase } from "./ingest-database.js";
import type { IngestMode, IngestStats } from "./ingest-server.js";
import { formatTable } from "./measure.js";
import { type LoadResult, load } from "./webhooks-load.js";

const REPO_ROOT = fileURLToPath(new URL("../..", import.meta.url));
const knob = (name: string, fallback: number) => {
  const value = Number(process.env[name] ?? fallback);
  if (!Number.isFinite(value) || value <= 0) throw new Error(`${name} must be a positive number`);
  return value;
};
const SECONDS = knob("INGEST_SECONDS", 5);
const ROUNDS = knob("INGEST_ROUNDS", 3);
const WARMUP_SECONDS = knob("INGEST_WARMUP_SECONDS", 3);
const CONNECTIONS = knob("INGEST_CONNECTIONS", 32);
const POOL = knob("INGEST_POOL", 10);
const WORKER_CONCURRENCY = knob("INGEST_WORKER_CONCURRENCY", POOL);
/**
 * A Postgres backend publishes its transaction counts at most once a second, and one gone idle within that second
 * publishes them 10 s later (PostgreSQL 15's `PGSTAT_IDLE_INTERVAL`): the count is read this long after the drain.
 */
const STATS_SETTLE_MS = knob("INGEST_STATS_SETTLE_MS", 11_000);
const DRAIN_TIMEOUT_MS = 120_000;
/** Issue 20: at most this many round trips to the database per delivery, accept path and run together. */
const MAX_ROUND_TRIPS = 4;
/** How often a backlog is read: the database (Postgres sides), the server's run count alone (memory). */
const POLL_MS = { postgres: 50, memory: 10 };

/** One server of a section: how it is started and how its backlog is read. */
interface Side {
  label: string;
  mode: IngestMode;
  flowrt: boolean;
  baseline?: BaselineTree;
  /** Postgres sides: the schema it was given. */
  schema?: string;
}

interface Round {
  load: LoadResult;
  acceptedPerSec: number;
  completedPerSec: number;
  drainSeconds: number;
  cpuUsPerDelivery: number;
  roundTripsPerDelivery: number;
  transactionsPerDelivery: number;
}

const verdict = (ratio: number, target: number) =>
  `${ratio.toFixed(2)}× ${ratio >= target ? "met" : "MISSED"} (target ≥ ${target}×)`;

/** A load's result, refused (figures discarded) when any answer was not 2xx or any request failed. */
function checked(label: string, result: LoadResult): LoadResult {
  if (result.non2xx > 0 || result.errors > 0) {
    throw new Error(
      `${label}: ${result.non2xx} non-2xx answers and ${result.errors} errors; figures discarded`,
    );
  }
  return result;
}

/** Waits until the server has run every delivery it accepted; returns the last stats read. */
async function drain(
  side: Side,
  server: IngestServer,
  db: BenchDatabase | undefined,
  accepted: number,
): Promise<IngestStats> {
  const deadline = performance.now() + DRAIN_TIMEOUT_MS;
  let last = -1;
  let steady = 0;
  for (;;) {
    const stats = await server.stats();
    if (side.schema && db) {
      // The database says: no flowrt request left unfinished, no graphile-worker job left in its table.
      const left = side.flowrt ? await db.unfinishedRequests(side.schema) : await db.jobs(side.schema);
      if (left === 0 && stats.runs >= accepted) return stats;
    } else {
      // Memory: every accepted delivery has run, and no run came in the last two polls (autocannon counts no
      // answer still in flight when it stops, which the server accepted all the same).
      steady = stats.runs === last ? steady + 1 : 0;
      last = stats.runs;
      if (stats.runs >= accepted && steady >= 2) return stats;
    }
    if (performance.now() > deadline) {
      throw new Error(`${side.label}: backlog not drained in ${DRAIN_TIMEOUT_MS / 1000} s`);
    }
    await sleep(side.schema ? POLL_MS.postgres : POLL_MS.memory);
  }
}

async function measureSection(
  title: string,
  sides: Side[],
  env: Record<string, string>,
  db: BenchDatabase | undefined,
): Promise<Map<Side, Round[]>> {
  const servers = new Map<Side, IngestServer>();
  const accepted = new Map<Side, number>();
  try {
    for (const side of sides) {
      const server = await startIngestServer(side.mode, {
        label: side.label,
        env: { ...env, ...(side.schema ? { INGEST_SCHEMA: side.schema } : {}) },
        ...(side.baseline ? { baseline: side.baseline } : {}),
      });
      servers.set(side, server);
      accepted.set(side, 0);
    }
    // Warm-up: JIT, pools and tables on every side; each backlog drained.
    for (const side of sides) {
      const server = servers.get(side)!;
      const result = checked(
        `warm-up ${side.label}`,
        await load(server.url, { seconds: WARMUP_SECONDS, connections: CONNECTIONS }),
      );
      accepted.set(side, accepted.get(side)! + result.responses);
      await drain(side, server, db, accepted.get(side)!);
    }
    if (db) await sleep(STATS_SETTLE_MS);
    const rounds = new Map<Side, Round[]>(sides.map((side) => [side, []]));
    for (let round = 0; round < ROUNDS; round++) {
      process.stderr.write(`ingest ${title}: round ${round + 1} of ${ROUNDS}\n`);
      // Each server takes each place in turn.
      for (const side of rotate(sides, round)) {
        const server = servers.get(side)!;
        const before = await server.stats();
        const ownBefore = db?.ownQueries() ?? 0;
        const transactionsBefore = db ? await db.transactions() : 0;
        const started = performance.now();
        const result = checked(
          side.label,
          await load(server.url, { seconds: SECONDS, connections: CONNECTIONS }),
        );
        const loaded = performance.now();
        accepted.set(side, accepted.get(side)! + result.responses);
        const after = await drain(side, server, db, accepted.get(side)!);
        const drained = performance.now();
        let transactions = 0;
        if (db) {
          await sleep(STATS_SETTLE_MS);
          // This module's own queries between the two reads are transactions too; they are not the server's.
          const own = db.ownQueries() - ownBefore;
          transactions = (await db.transactions()) - transactionsBefore - own;
        }
        const deliveries = Math.max(1, result.responses);
        rounds.get(side)!.push({
          load: result,
          acceptedPerSec: result.rps,
          completedPerSec: result.responses / ((drained - started) / 1000),
          drainSeconds: (drained - loaded) / 1000,
          cpuUsPerDelivery: (after.cpuUs - before.cpuUs) / deliveries,
          roundTripsPerDelivery: (after.roundTrips - before.roundTrips) / deliveries,
          transactionsPerDelivery: transactions / deliveries,
        });
      }
    }
    if (db) {
      for (const side of sides) {
        if (!side.flowrt || !side.schema) continue;
        const failed = await db.failedRequests(side.schema);
        if (failed > 0) throw new Error(`${side.label}: ${failed} requests failed; figures discarded`);
      }
    }
    const engines = sides.filter((side) => side.flowrt).map((side) => servers.get(side)!);
    if (sides.some((side) => side.baseline)) {
      process.stderr.write(
        `ingest ${title}: ${engines.map((s) => `${s.label} from ${relative(REPO_ROOT, s.engine ?? "?")}`).join(", ")}\n`,
      );
    }
    return rounds;
  } finally {
    await Promise.all([...servers.values()].map((server) => server.stop()));
  }
}

const perRound = (values: number[], digits = 0) => values.map((v) => v.toFixed(digits)).join(", ");

/** The section's table and ratio lines, as Markdown. */
function report(
  title: string,
  sides: Side[],
  rounds: Map<Side, Round[]>,
  target: number,
  postgres: boolean,
): string {
  const rows = sides.map((side) => {
    const runs = rounds.get(side)!;
    const pick = (f: (r: Round) => number) => runs.map(f);
    return {
      server: side.label,
      "accepted 2xx/s (median)": Math.round(median(pick((r) => r.acceptedPerSec))),
      "accepted per round": perRound(pick((r) => r.acceptedPerSec)),
      "completed runs/s incl. drain (median)": Math.round(median(pick((r) => r.completedPerSec))),
      "completed per round": perRound(pick((r) => r.completedPerSec)),
      "drain s (median)": median(pick((r) => r.drainSeconds)).toFixed(2),
      "CPU µs/delivery (median)": Math.round(median(pick((r) => r.cpuUsPerDelivery))),
      "CPU per round": perRound(pick((r) => r.cpuUsPerDelivery)),
      "p99 ms (median)": median(pick((r) => r.load.p99Ms)),
      ...(postgres
        ? {
            "transactions/delivery (median)": median(pick((r) => r.transactionsPerDelivery)).toFixed(2),
            "round trips/delivery (median)": median(pick((r) => r.roundTripsPerDelivery)).toFixed(2),
            "round trips per round": perRound(
              pick((r) => r.roundTripsPerDelivery),
              2,
            ),
          }
        : {}),
    };
  });
  const [flowrt, peer, baseline] = sides;
  const ratioLines = (a: Side, b: Side, name: string, withTarget: boolean) => {
    const ra = rounds.get(a)!;
    const rb = rounds.get(b)!;
    const lines: string[] = [];
    for (const [figure, f] of [
      ["accepted 2xx/s", (r: Round) => r.acceptedPerSec],
      ["completed runs/s incl. drain", (r: Round) => r.completedPerSec],
    ] as const) {
      const ratio = median(ra.map(f)) / median(rb.map(f));
      lines.push(
        `- ${name}, ${figure}: ${withTarget ? verdict(ratio, target) : `${ratio.toFixed(3)}×`}; per round ${ra.map((r, i) => (f(r) / f(rb[i]!)).toFixed(2)).join(", ")}`,
      );
    }
    const cpu = median(ra.map((r) => r.cpuUsPerDelivery)) / median(rb.map((r) => r.cpuUsPerDelivery));
    lines.push(`- ${name}, CPU per delivery: ${cpu.toFixed(2)}×`);
    return lines;
  };
  return [
    `### ${title} (${CONNECTIONS} connections, ${WARMUP_SECONDS} s warm-up per server, then ${ROUNDS} rotating rounds × ${SECONDS} s, 1 KiB signed body)`,
    "",
    formatTable(rows),
    "",
    ...ratioLines(flowrt!, peer!, `flowrt ÷ ${peer!.label}`, true),
    ...(baseline ? ratioLines(flowrt!, baseline, `flowrt ÷ ${baseline.label}`, false) : []),
  ].join("\n");
}

async function memorySection(tree: BaselineTree | undefined): Promise<string> {
  const sides: Side[] = [
    { label: "flowrt (memory store)", mode: "flowrt-memory", flowrt: true },
    { label: "Express + constructEvent + in-process queue", mode: "peer-memory", flowrt: false },
    ...(tree
      ? [
          {
            label: `flowrt (baseline ${describeBaseline(tree)})`,
            mode: "flowrt-memory" as const,
            flowrt: true,
            baseline: tree,
          },
        ]
      : []),
  ];
  const rounds = await measureSection("memory", sides, {}, undefined);
  return [
    report(
      "Memory: flowrt against Express + constructEvent + an in-process queue",
      sides,
      rounds,
      0.8,
      false,
    ),
    "- completed: the handler ran (flowrt's memory store completes the request as the handler returns).",
  ].join("\n");
}

async function postgresSection(databaseUrl: string, tree: BaselineTree | undefined): Promise<string> {
  const db = await openBenchDatabase(databaseUrl);
  const schema = (name: string) => `ingest_${name}`;
  const sides: Side[] = [
    { label: "flowrt (Postgres store)", mode: "flowrt-postgres", flowrt: true, schema: schema("flowrt") },
    {
      label: "Express + constructEvent + graphile-worker",
      mode: "peer-postgres",
      flowrt: false,
      schema: schema("graphile"),
    },
    ...(tree
      ? [
          {
            label: `flowrt (baseline ${describeBaseline(tree)})`,
            mode: "flowrt-postgres" as const,
            flowrt: true,
            baseline: tree,
            schema: schema("baseline"),
          },
        ]
      : []),
  ];
  try {
    const rounds = await measureSection(
      "postgres",
      sides,
      {
        INGEST_DATABASE_URL: db.url,
        INGEST_POOL: String(POOL),
        INGEST_WORKER_CONCURRENCY: String(WORKER_CONCURRENCY),
        INGEST_COUNT_ROUND_TRIPS: "1",
      },
      db,
    );
    const trips = (side: Side) => median(rounds.get(side)!.map((r) => r.roundTripsPerDelivery));
    return [
      report(
        "Postgres: flowrt against Express + constructEvent + graphile-worker addJob",
        sides,
        rounds,
        1.0,
        true,
      ),
      ...sides
        .filter((side) => side.flowrt)
        .map(
          (side) =>
            `- ${side.label}, round trips per delivery (accept and run together): ${trips(side).toFixed(2)}, ${trips(side) <= MAX_ROUND_TRIPS ? "met" : "MISSED"} (target ≤ ${MAX_ROUND_TRIPS})`,
        ),
      `- each Postgres server: one \`pg\` pool of ${POOL} connections (\`INGEST_POOL\`); graphile-worker runs ${WORKER_CONCURRENCY} jobs at a time (\`INGEST_WORKER_CONCURRENCY\`), in the server's process, on the pool its route's \`addJob\` uses; flowrt runs each accepted delivery's handler in its process as the engine schedules it (no cap of its own).`,
      "- completed: flowrt's request is `completed` (no request left `queued` or `running` in its schema); graphile-worker's job is done (its job table empty).",
      `- transactions/delivery: \`xact_commit + xact_rollback\` of the database in \`pg_stat_database\` over the load, the drain and ${STATS_SETTLE_MS / 1000} s of settling (backends publish their counts late), less this process's own queries, ÷ 2xx. ${db.own ? "The database was made for this run and nothing else uses it; the idle servers' background work (flowrt's recovery passes, graphile-worker's polling) lands in every round's count." : "The run could not make a database of its own: the count includes anything else using DATABASE_URL's database."}`,
      "- round trips/delivery: queries the server sent (`pg.Client#query` calls, counted in the server, its queue's and the worker's included) over the load and the drain ÷ 2xx.",
    ].join("\n");
  } finally {
    await db.close();
  }
}

export async function run(): Promise<string> {
  const stores = new Set((process.env.INGEST_STORES ?? "memory,postgres").split(",").map((s) => s.trim()));
  const parts = [
    `Load average at the start: ${loadavg()
      .map((l) => l.toFixed(2))
      .join(", ")} (${cpus().length} CPUs, ${cpus()[0]?.model ?? "unknown"}, Node ${process.version}).`,
  ];
  // The servers run the packages' built output: build it first (turbo, cached).
  if (!process.env.INGEST_BENCH_SOURCE) {
    execFileSync("pnpm", ["build"], { cwd: REPO_ROOT, stdio: ["ignore", "ignore", "inherit"] });
  }
  const tree = await baselineTree();
  if (stores.has("memory")) parts.push(await memorySection(tree));
  if (stores.has("postgres")) {
    const url = process.env.DATABASE_URL;
    if (url) parts.push(await postgresSection(url, tree));
    else parts.push("### Postgres\n\nSkipped: DATABASE_URL is not set.");
  }
  parts.push(`Load average at the end: ${loadavg()[0]!.toFixed(2)}.`);
  return parts.join("\n\n");
}
