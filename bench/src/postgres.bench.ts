/**
 * The Postgres store on a real server (`DATABASE_URL`):
 *
 * 1. Page and count time at 1k, 100k and 1M items in one scope (target: 1M within 2× of 1k). Each size
 *    gets a fresh schema, loaded by bulk SQL into the store's own tables (see postgres-populate.ts),
 *    and every figure is measured through the store API. At each size also a collection's leaf page by
 *    keyset, `list(address, { prefix, leaf: true, after, limit: 50 })` at depth nine tenths of the items
 *    (900 000 of 1 000 000), beside the first leaf page, in alternating rounds (issue 21 target: within 2×).
 * 2. 64 concurrent `incState`-style compare-and-swap increments of one key through the store API,
 *    beside a raw `UPDATE … SET n = n + 1` through the same pool (target: ≥ 0.5× its throughput,
 *    every increment landing), without and with a fence (a durable run's writes, under one request's
 *    current claim).
 * 3. Durable-action throughput through `host.invoke`, fenced, with fences stripped, and (with
 *    `BENCH_BASELINE`) on a baseline revision (postgres-durable.ts).
 *
 * `POSTGRES_BENCH_SECTIONS` (comma-separated `sizes`, `increments`, `durable`; default all) runs fewer.
 */
import { randomBytes } from "node:crypto";
import { availableParallelism, loadavg } from "node:os";
import type { ScopeAddress } from "@flowrt/core";
import { createPostgresStores, type PostgresStores } from "@flowrt/store-postgres";
import pg from "pg";
import { median } from "./before-after.js";
import { formatTable, type Measurement, measure } from "./measure.js";
import { durableTable } from "./postgres-durable.js";
import { casIncrements, claimedRequest, rawIncrements } from "./postgres-increments.js";
import { benchKey, bulkLoad } from "./postgres-populate.js";

const address: ScopeAddress = { scope: "session", scopeId: "bench", bucket: "shared" };

interface SizeResult {
  n: number;
  loadSec: number;
  firstPage: Measurement;
  prefixPage: Measurement;
  countCollection: Measurement;
  countPrefix: Measurement;
  depth: CursorDepth;
}

/** The first leaf page and the leaf page after the key at `depth - 1`, measured in alternating rounds. */
interface CursorDepth {
  depth: number;
  first: Measurement[];
  deep: Measurement[];
}

const CURSOR_ROUNDS = 3;

/** Fails the run if the store does not read back what was loaded: a fast wrong answer is no result. */
async function check(stores: PostgresStores, n: number): Promise<void> {
  const total = await stores.resources.count(address, "items/");
  const leaves = await stores.resources.count(address, "items/", { leaf: true });
  const page = await stores.resources.list(address, { prefix: "items/", offset: 10, limit: 50 });
  const expected = Array.from({ length: Math.min(50, n - 10) }, (_, i) => benchKey(10 + i));
  if (
    total !== n ||
    leaves !== n ||
    page.total !== n ||
    page.items.map((item) => item.key).join() !== expected.join()
  ) {
    throw new Error(
      `the store reads back ${total} items (${leaves} by leaf count, page total ${page.total}), not the ${n} loaded`,
    );
  }
}

async function benchSize(pool: pg.Pool, n: number, ms: number): Promise<SizeResult> {
  const schema = `flowrt_bench_${randomBytes(4).toString("hex")}`;
  const stores = createPostgresStores({ pool, schema });
  try {
    await stores.setup();
    const t0 = performance.now();
    await bulkLoad(pool, schema, address, n);
    const loadSec = (performance.now() - t0) / 1000;
    await check(stores, n);
    const rand = () => Math.floor(Math.random() * n);
    // "items/" + 5 of the 8 digits: up to 1000 matching keys at every size.
    const prefix = () => benchKey(rand()).slice(0, 11);
    const firstPage = await measure(
      "page (first 50)",
      () => stores.resources.list(address, { prefix: "items/", limit: 50 }),
      ms,
    );
    const prefixPage = await measure(
      "page (prefix)",
      () => stores.resources.list(address, { prefix: prefix(), limit: 50 }),
      ms,
    );
    const countCollection = await measure("count", () => stores.resources.count(address, "items/"), ms);
    const countPrefix = await measure("count (prefix)", () => stores.resources.count(address, prefix()), ms);
    const depth = await cursorDepth(stores, n, ms);
    return { n, loadSec, firstPage, prefixPage, countCollection, countPrefix, depth };
  } finally {
    await stores.close();
    await pool.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  }
}

/**
 * Issue 21: a collection's page by keyset at depth 0.9n (`after` the key before it), as the engine asks for a page by
 * cursor, beside the first page of the same listing. Checked before it is timed: a fast wrong answer is no result.
 */
async function cursorDepth(stores: PostgresStores, n: number, ms: number): Promise<CursorDepth> {
  const depth = Math.floor((n * 9) / 10);
  const listing = { prefix: "items/", leaf: true, limit: 50 } as const;
  const first = () => stores.resources.list(address, listing);
  const deep = () => stores.resources.list(address, { ...listing, after: benchKey(depth - 1) });
  const page = await deep();
  const expected = Array.from({ length: Math.min(50, n - depth) }, (_, i) => benchKey(depth + i));
  if (page.total !== n || page.items.map((item) => item.key).join() !== expected.join()) {
    throw new Error(
      `the leaf page after ${benchKey(depth - 1)} starts at ${page.items[0]?.key} (total ${page.total}), not at ${benchKey(depth)} of ${n}: does the store page by \`after\`?`,
    );
  }
  const result: CursorDepth = { depth, first: [], deep: [] };
  for (let round = 0; round < CURSOR_ROUNDS; round++) {
    const pair = [
      async () => result.first.push(await measure("leaf page (first 50)", first, ms)),
      async () => result.deep.push(await measure(`leaf page after ${depth}`, deep, ms)),
    ];
    for (const step of round % 2 === 0 ? pair : pair.reverse()) await step();
  }
  return result;
}

function sizeRows(results: SizeResult[]) {
  return results.map((r) => ({
    items: r.n,
    "page first 50 p50 µs": r.firstPage.p50Us,
    "page first 50 p99 µs": r.firstPage.p99Us,
    "page by prefix p50 µs": r.prefixPage.p50Us,
    "count p50 µs": r.countCollection.p50Us,
    "count p99 µs": r.countCollection.p99Us,
    "count by prefix p50 µs": r.countPrefix.p50Us,
    "leaf page first 50 p50 µs": median(r.depth.first.map((m) => m.p50Us)),
    "leaf page by cursor at 0.9n p50 µs": median(r.depth.deep.map((m) => m.p50Us)),
    "leaf page by cursor at 0.9n p99 µs": median(r.depth.deep.map((m) => m.p99Us)),
    "bulk load s": r.loadSec,
  }));
}

function verdict(label: string, small: number, large: number, target: number): string {
  const x = large / small;
  return `- ${label}: ${x.toFixed(2)}× ${x <= target ? "(meets" : "(MISSES"} ≤ ${target}×)`;
}

/** Issue 21's line for one size: the page by cursor at depth ÷ the first page, medians of rounds and each round. */
function depthVerdict(r: SizeResult): string {
  const { depth, first, deep } = r.depth;
  const perRound = deep.map((m, i) => (m.p50Us / first[i]!.p50Us).toFixed(2));
  return `${verdict(
    `leaf page by cursor at ${depth} of ${r.n} items ÷ the first leaf page (medians of ${first.length} alternating rounds)`,
    median(first.map((m) => m.p50Us)),
    median(deep.map((m) => m.p50Us)),
    2,
  )}; per round ${perRound.join(", ")}`;
}

export async function run(): Promise<string> {
  const url = process.env.DATABASE_URL;
  if (!url) {
    return "_Skipped: set DATABASE_URL to a PostgreSQL server, e.g. postgres://flowrt:flowrt@127.0.0.1:5432/flowrt._";
  }
  const ms = Number(process.env.BENCH_MS ?? 1000);
  const sizes = (process.env.BENCH_POSTGRES_SIZES ?? "1000,100000,1000000").split(",").map(Number);
  const sections = new Set((process.env.POSTGRES_BENCH_SECTIONS ?? "sizes,increments,durable").split(","));
  const pool = new pg.Pool({ connectionString: url, max: 16 });
  try {
    const [loadAtStart] = loadavg();
    const parts: string[] = [];
    if (sections.has("sizes")) {
      const results: SizeResult[] = [];
      for (const n of sizes) results.push(await benchSize(pool, n, ms));
      const small = results[0]!;
      const large = results.at(-1)!;
      const at = `${large.n} vs ${small.n} items (medians)`;
      parts.push(
        formatTable(sizeRows(results)),
        "",
        verdict(`page, first 50, at ${at}`, small.firstPage.p50Us, large.firstPage.p50Us, 2),
        verdict(`page by prefix at ${at}`, small.prefixPage.p50Us, large.prefixPage.p50Us, 2),
        verdict(`count at ${at}`, small.countCollection.p50Us, large.countCollection.p50Us, 2),
        verdict(`count by prefix at ${at}`, small.countPrefix.p50Us, large.countPrefix.p50Us, 2),
        ...results.map((r) => depthVerdict(r)),
        "",
      );
    }
    if (sections.has("increments")) parts.push(await incrementsTable(pool), "");
    if (sections.has("durable")) parts.push(await durableTable(), "");
    const [load1] = loadavg();
    return [
      `_Server: ${(await pool.query<{ v: string }>("SELECT current_setting('server_version') AS v")).rows[0]?.v}; ${availableParallelism()} cores, load average ${loadAtStart?.toFixed(1)} at the start, ${load1?.toFixed(1)} at the end._`,
      "",
      ...parts,
    ].join("\n");
  } finally {
    await pool.end();
  }
}

async function incrementsTable(pool: pg.Pool): Promise<string> {
  const schema = `flowrt_bench_${randomBytes(4).toString("hex")}`;
  const stores = createPostgresStores({ pool, schema });
  const workers = 64;
  const each = Number(process.env.BENCH_INCREMENTS_EACH ?? 50);
  try {
    await stores.setup();
    const fence = await claimedRequest(stores, "bench-request");
    // Rotate the three, three rounds each, and compare medians: the server's state drifts over a run.
    const raw: number[] = [];
    const cas: Array<{ opsPerSec: number; attemptsPerIncrement: number }> = [];
    const fenced: Array<{ opsPerSec: number; attemptsPerIncrement: number }> = [];
    const kinds = [
      async (round: number) => raw.push(await rawIncrements(pool, schema, `raw-${round}`, workers, each)),
      async (round: number) => cas.push(await casIncrements(stores, `cas-${round}`, workers, each)),
      async (round: number) =>
        fenced.push(await casIncrements(stores, `fenced-${round}`, workers, each, fence)),
    ];
    for (let round = 0; round < 3; round++) {
      for (let i = 0; i < kinds.length; i++) await kinds[(round + i) % kinds.length]!(round);
    }
    const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
    const rawOps = median(raw);
    const row = (label: string, runs: typeof cas) => ({
      "increments of one key": `${workers} concurrent × ${each}`,
      writes: label,
      "ops/s": Math.round(median(runs.map((c) => c.opsPerSec))),
      "raw UPDATE n = n + 1 ops/s": Math.round(rawOps),
      "ratio to raw": median(runs.map((c) => c.opsPerSec)) / rawOps,
      "CAS attempts per increment (stale ones lose in-process)": median(
        runs.map((c) => c.attemptsPerIncrement),
      ),
      "pool connections": 16,
    });
    const verdictOf = (label: string, runs: typeof cas) => {
      const ratio = median(runs.map((c) => c.opsPerSec)) / rawOps;
      return `- ${label} compare-and-swap vs raw UPDATE throughput: ${ratio.toFixed(2)}× ${ratio >= 0.5 ? "(meets" : "(MISSES"} ≥ 0.5×)`;
    };
    const casOps = median(cas.map((c) => c.opsPerSec));
    const fencedOps = median(fenced.map((c) => c.opsPerSec));
    return [
      formatTable([row("store CAS (incState-style)", cas), row("store CAS, fenced", fenced)]),
      "",
      verdictOf("unfenced", cas),
      verdictOf("fenced", fenced),
      `- fenced ÷ unfenced: ${(fencedOps / casOps).toFixed(2)}×; every increment landed in all ${3 * 3} rounds`,
    ].join("\n");
  } finally {
    await stores.close();
    await pool.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  }
}
