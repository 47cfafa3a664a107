/**
 * Store throughput for get, compare-and-swap set and a 50-item list page as the collection grows.
 * The figure that matters is the page time at the large size relative to the small size, in the same run:
 * memory 1M within 2× of 1k, fs 100k within 3× of 1k.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type FlowStores, type ScopeAddress, SHARED_BUCKET } from "@flowrt/core";
import { createFsStores } from "@flowrt/store-fs";
import { createMemoryStores } from "@flowrt/store-memory";
import { formatTable, measure, pool } from "./measure.js";

const address: ScopeAddress = { scope: "session", scopeId: "bench", bucket: SHARED_BUCKET };
const keyOf = (i: number) => `items/${String(i).padStart(8, "0")}`;

async function populate(stores: FlowStores, n: number) {
  // Random insertion order: the index must not rely on keys arriving sorted.
  const order = Array.from({ length: n }, (_, i) => i);
  for (let i = n - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [order[i], order[j]] = [order[j]!, order[i]!];
  }
  await pool(order, 64, (i) =>
    stores.resources.putState(address, keyOf(i), { n: i, title: `item ${i}` }, { type: "absent" }),
  );
}

async function benchStore(label: string, stores: FlowStores, n: number, ms: number) {
  const t0 = performance.now();
  await populate(stores, n);
  const populateSec = (performance.now() - t0) / 1000;
  const rand = () => Math.floor(Math.random() * n);
  const get = await measure("get", () => stores.resources.getState(address, keyOf(rand())), ms);
  const versions = new Map<string, number>();
  const cas = await measure(
    "cas set",
    async () => {
      const key = keyOf(rand() % 1000);
      const expected = versions.get(key) ?? (await stores.resources.getState(address, key))!.version;
      // The populated shape, so that pages read the same work at every size after this phase.
      const state = { n: expected, title: `item ${expected}` };
      const result = await stores.resources.putState(address, key, state, {
        type: "version",
        version: expected,
      });
      versions.set(key, result.ok ? result.version : result.current!.version);
    },
    ms,
  );
  const pageByPrefix = await measure(
    "page (prefix)",
    () => stores.resources.list(address, { prefix: keyOf(rand()).slice(0, 11), limit: 50 }),
    ms,
  );
  const pageByOffset = await measure(
    "page (offset)",
    () => stores.resources.list(address, { prefix: "items/", offset: Math.max(0, rand() - 50), limit: 50 }),
    ms,
  );
  const count = await measure("count", () => stores.resources.count(address, "items/"), ms);
  return { label, n, populateSec, get, cas, pageByPrefix, pageByOffset, count };
}

type Result = Awaited<ReturnType<typeof benchStore>>;

function rows(results: Result[]) {
  return results.map((r) => ({
    store: r.label,
    keys: r.n,
    "get ops/s": Math.round(r.get.opsPerSec),
    "cas set ops/s": Math.round(r.cas.opsPerSec),
    "page (prefix) p50 µs": r.pageByPrefix.p50Us,
    "page (prefix) mean µs": r.pageByPrefix.meanUs,
    "page (offset) p50 µs": r.pageByOffset.p50Us,
    "count p50 µs": r.count.p50Us,
    "populate s": r.populateSec,
  }));
}

function ratio(small: Result, large: Result, target: number) {
  // Medians: a page's own cost, without the garbage-collection pauses of a larger heap landing on it.
  const prefix = large.pageByPrefix.p50Us / small.pageByPrefix.p50Us;
  const offset = large.pageByOffset.p50Us / small.pageByOffset.p50Us;
  const verdict = (x: number) => `${x.toFixed(2)}× ${x <= target ? "(meets" : "(MISSES"} ≤ ${target}×)`;
  return `- ${large.label}: page at ${large.n} keys vs ${small.n} keys — by prefix ${verdict(prefix)}, by offset ${verdict(offset)}`;
}

export async function run(): Promise<string> {
  const ms = Number(process.env.BENCH_MS ?? 1000);
  const results: Result[] = [];
  const memSmall = createMemoryStores();
  results.push(await benchStore("memory", memSmall, 1_000, ms));
  await memSmall.close();
  const memLarge = createMemoryStores();
  results.push(await benchStore("memory", memLarge, Number(process.env.BENCH_MEMORY_LARGE ?? 1_000_000), ms));
  await memLarge.close();

  for (const n of [1_000, Number(process.env.BENCH_FS_LARGE ?? 100_000)]) {
    const dir = await mkdtemp(join(tmpdir(), "flowrt-bench-fs-"));
    const fs = createFsStores({ dir });
    results.push(await benchStore("fs", fs, n, ms));
    await fs.close();
    await rm(dir, { recursive: true, force: true });
  }
  return [
    formatTable(rows(results)),
    "",
    ratio(results[0]!, results[1]!, 2),
    ratio(results[2]!, results[3]!, 3),
  ].join("\n");
}
