/**
 * A 50-item collection page through the HTTP route as the collection grows (issue 20, target 1): the first page
 * (offset 0) at the largest size within 2× of the same page at the smallest, on every store (memory, fs, Postgres
 * with `DATABASE_URL`). For information, at every size: a page at a deep offset (half the items) and a page by
 * `cursor` at depth nine tenths of the items (900 000 of 1 000 000), whose cursor is the `pagination.nextCursor`
 * of the page just before it (the cursor is opaque, so it is never made here).
 *
 * Each size is a server child (`pages-server.ts`) whose store is loaded directly (the store's `putState`, or bulk
 * SQL for Postgres), serving `GET /api/flows/sessions/:id/resources/items?limit=50…` over real HTTP; this process
 * sends one request at a time over one keep-alive connection (`pages-client.ts`). Every page kind is checked once
 * per server before it is timed (status, `total`, the first item's key and state): a fast wrong answer is no result.
 * Rounds alternate the servers' order and rotate the page kinds; every round warms each server and page kind up
 * before its timed requests. Figures: median and p99 of all timed requests of a server and page kind, the median
 * of each round (the spread), and the server's CPU per request.
 *
 * Knobs: `PAGES_STORES` (default `memory,fs,postgres`), `PAGES_SIZES` (default `1000,1000000`), `PAGES_FS_SIZES`
 * (default `1000,100000`: the fs store writes one file per item, see the README), `PAGES_REQUESTS` (timed requests
 * per server, page kind and round; default 300), `PAGES_WARMUP` (default 50), `PAGES_ROUNDS` (default 3),
 * `PAGES_BENCH_SOURCE`, `PAGES_BENCH_NODE_ARGS`, `PAGES_BENCH_CPU_PROF` (see `server-args.ts`).
 */
import { randomBytes } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { availableParallelism, cpus, loadavg, tmpdir } from "node:os";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import pg from "pg";
import { median, rotate } from "./before-after.js";
import { BENCH_USER, collectionPath, seededKey } from "./http-fixture.js";
import { formatTable } from "./measure.js";
import { type PagesChild, startPagesServer } from "./pages-child.js";
import { PageClient } from "./pages-client.js";
import type { PagesStoreKind } from "./pages-server.js";

const TARGET = 2;
const LIMIT = 50;
const REPO_ROOT = fileURLToPath(new URL("../..", import.meta.url));

const numbers = (raw: string) => raw.split(",").map((s) => Number(s.trim()));

/** A page kind at one server: its path and what its first item must be. */
interface PageKind {
  name: "first" | "offset" | "cursor";
  /** `null`: the engine gave no cursor to page from (see {@link cursorPath}). */
  path: string | null;
  /** Index of the page's first item. */
  first: number;
  note?: string;
}

interface Figures {
  samplesMs: number[];
  roundMediansMs: number[];
  cpuUs: number;
  requests: number;
}

interface ServerRun {
  server: PagesChild;
  kinds: PageKind[];
  figures: Map<PageKind["name"], Figures>;
}

interface PageAnswer {
  items?: Array<{ topic?: string; clientData?: { n?: number } }>;
  pagination?: { total?: number; nextCursor?: string | null };
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? Number.NaN;
}

/** The page at `first`, checked: 200, `total` the whole collection, `limit` items from the expected key on. */
async function checkedPage(client: PageClient, server: PagesChild, path: string, first: number) {
  const answer = await client.get(path);
  const where = `${server.kind} with ${server.items} items, GET ${path}`;
  if (answer.status !== 200) throw new Error(`${where}: ${answer.status} ${answer.body.slice(0, 300)}`);
  const page = JSON.parse(answer.body) as PageAnswer;
  const expected = Math.min(LIMIT, server.items - first);
  const items = page.items ?? [];
  if (
    page.pagination?.total !== server.items ||
    items.length !== expected ||
    (expected > 0 && (items[0]?.topic !== seededKey(first) || items[0]?.clientData?.n !== first))
  ) {
    throw new Error(
      `${where}: expected ${expected} items from ${seededKey(first)} of ${server.items}, got ${items.length} from ${items[0]?.topic} of ${page.pagination?.total}`,
    );
  }
  return page;
}

const pagePath = (server: PagesChild, query: string) =>
  `${collectionPath(server.sessionId)}?limit=${LIMIT}${query}`;

/** The cursor page at `depth`: the `nextCursor` of the page that ends just before it, by offset. */
async function cursorKind(client: PageClient, server: PagesChild, depth: number): Promise<PageKind> {
  const before = Math.max(0, depth - LIMIT);
  const page = await checkedPage(client, server, pagePath(server, `&offset=${before}`), before);
  const cursor = page.pagination?.nextCursor;
  if (typeof cursor !== "string" || cursor === "") {
    return { name: "cursor", path: null, first: depth, note: "the page before it carried no `nextCursor`" };
  }
  const path = pagePath(server, `&cursor=${encodeURIComponent(cursor)}`);
  await checkedPage(client, server, path, depth);
  return { name: "cursor", path, first: depth };
}

async function pageKinds(client: PageClient, server: PagesChild): Promise<PageKind[]> {
  const n = server.items;
  const offset = Math.floor(n / 2);
  const depth = Math.floor((n * 9) / 10);
  const kinds: PageKind[] = [
    { name: "first", path: pagePath(server, ""), first: 0 },
    { name: "offset", path: pagePath(server, `&offset=${offset}`), first: offset },
  ];
  for (const kind of kinds) await checkedPage(client, server, kind.path!, kind.first);
  kinds.push(await cursorKind(client, server, depth));
  return kinds;
}

async function timedRequests(client: PageClient, path: string, count: number) {
  const times: number[] = [];
  for (let i = 0; i < count; i++) {
    const answer = await client.get(path);
    if (answer.status !== 200) throw new Error(`GET ${path}: ${answer.status} ${answer.body.slice(0, 300)}`);
    times.push(answer.ms);
  }
  return times;
}

async function measureStore(kind: PagesStoreKind, sizes: number[], env: Record<string, string>[]) {
  const rounds = Number(process.env.PAGES_ROUNDS ?? 3);
  const requests = Number(process.env.PAGES_REQUESTS ?? 300);
  const warmup = Number(process.env.PAGES_WARMUP ?? 50);
  const runs: ServerRun[] = [];
  const clients: PageClient[] = [];
  try {
    // One at a time: a load does not share the machine with another.
    for (const [i, n] of sizes.entries()) {
      const server = await startPagesServer(kind, n, env[i]!);
      const client = new PageClient(server.origin, BENCH_USER);
      clients.push(client);
      runs.push({ server, kinds: await pageKinds(client, server), figures: new Map() });
    }
    for (let round = 0; round < rounds; round++) {
      for (const i of rotate(
        runs.map((_, i) => i),
        round,
      )) {
        const run = runs[i]!;
        const client = clients[i]!;
        for (const pageKind of rotate(run.kinds, round)) {
          if (pageKind.path === null) continue;
          await timedRequests(client, pageKind.path, warmup);
          const before = await run.server.usage();
          const times = await timedRequests(client, pageKind.path, requests);
          const after = await run.server.usage();
          const figures = run.figures.get(pageKind.name) ?? {
            samplesMs: [],
            roundMediansMs: [],
            cpuUs: 0,
            requests: 0,
          };
          figures.samplesMs.push(...times);
          figures.roundMediansMs.push(median(times));
          figures.cpuUs += after.cpuUs - before.cpuUs;
          figures.requests += times.length;
          run.figures.set(pageKind.name, figures);
        }
      }
    }
    const rss = await Promise.all(runs.map((run) => run.server.usage().then((u) => u.rss)));
    return report(kind, runs, rss);
  } finally {
    for (const client of clients) client.close();
    for (const run of runs) await run.server.close();
  }
}

const us = (ms: number) => Math.round(ms * 1000);

function summary(figures: Figures | undefined) {
  if (!figures) return undefined;
  const sorted = [...figures.samplesMs].sort((a, b) => a - b);
  return {
    p50: percentile(sorted, 0.5),
    p99: percentile(sorted, 0.99),
    rounds: figures.roundMediansMs,
    cpuPerRequest: figures.cpuUs / figures.requests,
  };
}

function report(kind: PagesStoreKind, runs: ServerRun[], rss: number[]) {
  const cells = (run: ServerRun, name: PageKind["name"]) => {
    const s = summary(run.figures.get(name));
    if (!s) {
      const note = run.kinds.find((k) => k.name === name)?.note ?? "not measured";
      return [`n/a (${note})`, "", ""] as const;
    }
    return [us(s.p50), us(s.p99), Math.round(s.cpuPerRequest)] as const;
  };
  const rows = runs.map((run, i) => {
    const n = run.server.items;
    const [f50, f99, fcpu] = cells(run, "first");
    const [o50, o99] = cells(run, "offset");
    const [c50, c99] = cells(run, "cursor");
    return {
      store: kind,
      items: n,
      "first page p50 µs": f50,
      "first page p99 µs": f99,
      "first page server CPU µs/req": fcpu,
      "offset n/2 p50 µs": o50,
      "offset n/2 p99 µs": o99,
      "cursor at 0.9n p50 µs": c50,
      "cursor at 0.9n p99 µs": c99,
      "load s": run.server.populateSec,
      "server RSS MiB": Math.round(rss[i]! / 2 ** 20),
    };
  });
  const small = runs[0]!;
  const large = runs.at(-1)!;
  const lines: string[] = [formatTable(rows), ""];
  const first = (run: ServerRun) => summary(run.figures.get("first"))!;
  if (runs.length > 1) {
    const ratio = first(large).p50 / first(small).p50;
    const perRound = first(large).rounds.map((m, r) => (m / first(small).rounds[r]!).toFixed(2));
    lines.push(
      `- ${kind}: first page at ${large.server.items} ÷ ${small.server.items} items (medians): ${ratio.toFixed(2)}× ` +
        `${ratio <= TARGET ? "(meets" : "(MISSES"} ≤ ${TARGET}×); per round ${perRound.join(", ")}; ` +
        `p99 ${(first(large).p99 / first(small).p99).toFixed(2)}×`,
    );
  }
  for (const run of runs) {
    const base = first(run).p50;
    const parts = (["offset", "cursor"] as const).flatMap((name) => {
      const s = summary(run.figures.get(name));
      const at = run.kinds.find((k) => k.name === name)!.first;
      return s ? [`${name} at ${at} ${(s.p50 / base).toFixed(2)}×`] : [];
    });
    if (parts.length > 0)
      lines.push(`- ${kind}, ${run.server.items} items, ÷ the first page (information): ${parts.join(", ")}`);
  }
  return { table: lines.join("\n"), runs };
}

export async function run(): Promise<string> {
  const [loadAtStart] = loadavg();
  const stores = (process.env.PAGES_STORES ?? "memory,fs,postgres").split(",").map((s) => s.trim());
  const sizes = numbers(process.env.PAGES_SIZES ?? "1000,1000000");
  const fsSizes = numbers(process.env.PAGES_FS_SIZES ?? "1000,100000");
  const rounds = Number(process.env.PAGES_ROUNDS ?? 3);
  const requests = Number(process.env.PAGES_REQUESTS ?? 300);
  const warmup = Number(process.env.PAGES_WARMUP ?? 50);
  const url = process.env.DATABASE_URL;
  const parts: string[] = [];
  const engines = new Set<string>();
  for (const kind of stores) {
    if (kind !== "memory" && kind !== "fs" && kind !== "postgres")
      throw new Error(`PAGES_STORES: unknown store "${kind}"`);
    if (kind === "postgres" && !url) {
      parts.push("_postgres skipped: set DATABASE_URL to a PostgreSQL server._", "");
      continue;
    }
    const storeSizes = kind === "fs" ? fsSizes : sizes;
    const env = storeSizes.map(() => ({}) as Record<string, string>);
    const cleanup: Array<() => Promise<unknown>> = [];
    try {
      if (kind === "fs") {
        for (const e of env) {
          const dir = await mkdtemp(join(tmpdir(), "flowrt-bench-pages-"));
          e.PAGES_FS_DIR = dir;
          cleanup.push(() => rm(dir, { recursive: true, force: true }));
        }
      } else if (kind === "postgres") {
        const pool = new pg.Pool({ connectionString: url, max: 1 });
        for (const e of env) {
          const schema = `flowrt_bench_${randomBytes(4).toString("hex")}`;
          e.PAGES_PG_SCHEMA = schema;
          cleanup.push(() => pool.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`));
        }
        cleanup.push(() => pool.end());
      }
      const { table, runs } = await measureStore(kind, storeSizes, env);
      for (const r of runs) engines.add(relative(REPO_ROOT, r.server.engine));
      parts.push(table, "");
    } finally {
      for (const step of cleanup) await step();
    }
  }
  const [loadAtEnd] = loadavg();
  return [
    `_${availableParallelism()} CPUs (${cpus()[0]?.model ?? "unknown"}), Node ${process.version}, load average ${loadAtStart?.toFixed(2)} at the start, ${loadAtEnd?.toFixed(2)} at the end._`,
    "",
    ...parts,
    `- One request at a time over one keep-alive connection, timed from the request written to the last byte of the answer; ${rounds} rounds, each server and page kind warmed by ${warmup} requests per round before ${requests} timed ones; the servers' order alternates and the page kinds rotate between rounds. p50/p99 over every timed request; "per round" pairs the rounds' medians.`,
    "- offset n/2: `?offset=` half the items; cursor at 0.9n: `?cursor=` the `nextCursor` of the page ending just before item 0.9n. Every page kind was checked once per server (status 200, `total`, the first item's key and state) before it was timed.",
    "- Server CPU µs/req: the server process's user + system CPU time over the timed requests of the first page, per request.",
    `- Servers ran ${[...engines].join(", ")}.`,
  ].join("\n");
}
