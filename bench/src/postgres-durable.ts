/**
 * Durable-action throughput on Postgres, before and after fencing, in the same run: requests per second of a
 * durable action that does one `incState`, through `host.invoke` on a host over `createPostgresStores`
 * (`postgres-durable-child.ts`, one child process per measurement, on the built packages). Three variants, in
 * rotating rounds (each takes each place once in three rounds), compared by medians:
 *
 * - **fenced**: this checkout, the engine's fences passed to the store;
 * - **fences stripped**: this checkout, the same fences dropped before the store (the unfenced statements): the
 *   store's share of fencing's cost;
 * - **baseline** (with `BENCH_BASELINE=<rev>`, see bench/README.md): the same child on that revision's packages.
 */
import { spawn } from "node:child_process";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { assertLoadsFrom, type BaselineTree, baselineTree, describeBaseline } from "./baseline-tree.js";
import { formatTable } from "./measure.js";
import type { DurableResult } from "./postgres-durable-child.js";

const TSX = import.meta.resolve("tsx");
const CHILD = fileURLToPath(new URL("./postgres-durable-child.ts", import.meta.url));
const ROUNDS = 3;

interface Variant {
  label: string;
  mode: "fenced" | "unfenced";
  baseline?: BaselineTree;
}

function measureOnce(variant: Variant): Promise<DurableResult> {
  const { baseline } = variant;
  const child = spawn(
    process.execPath,
    ["--import", TSX, baseline ? join(baseline.srcDir, "postgres-durable-child.ts") : CHILD],
    {
      ...(baseline ? { cwd: baseline.benchDir } : {}),
      env: { ...process.env, BENCH_DURABLE_MODE: variant.mode },
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  let out = "";
  let err = "";
  child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
    out += chunk;
  });
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
    err += chunk;
  });
  return new Promise((resolve, reject) => {
    child.once("error", reject);
    child.once("exit", (code) => {
      const line = out.trim().split("\n").at(-1) ?? "";
      if (code !== 0 || !line.startsWith("{")) {
        reject(
          new Error(`${variant.label}: the durable benchmark child exited with ${code}:\n${out}\n${err}`),
        );
        return;
      }
      const result = JSON.parse(line) as DurableResult;
      try {
        assertLoadsFrom(variant.label, result.engine, baseline);
      } catch (error) {
        reject(error);
        return;
      }
      resolve(result);
    });
  });
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

/** The durable throughput section of the Postgres benchmark, as Markdown. */
export async function durableTable(): Promise<string> {
  const baseline = await baselineTree();
  const variants: Variant[] = [
    { label: "fenced", mode: "fenced" },
    { label: "fences stripped", mode: "unfenced" },
    ...(baseline
      ? [{ label: `baseline (${describeBaseline(baseline)})`, mode: "fenced" as const, baseline }]
      : []),
  ];
  const results = new Map<string, DurableResult[]>(variants.map((v) => [v.label, []]));
  for (let round = 0; round < ROUNDS; round++) {
    for (let i = 0; i < variants.length; i++) {
      const variant = variants[(round + i) % variants.length]!;
      results.get(variant.label)!.push(await measureOnce(variant));
    }
  }
  const medianOf = (label: string) => median(results.get(label)!.map((r) => r.requestsPerSec));
  const rows = variants.map((variant) => {
    const runs = results.get(variant.label)!;
    return {
      variant: variant.label,
      "requests/s (median)": Math.round(medianOf(variant.label)),
      "requests/s per round": runs.map((r) => Math.round(r.requestsPerSec)).join(", "),
      "failed requests": runs.reduce((sum, r) => sum + r.failed, 0),
      "fenced writes per request": runs[0]?.fencedWritesPerRequest.toFixed(1) ?? "",
    };
  });
  const fenced = medianOf("fenced");
  const lines = [
    formatTable(rows),
    "",
    `- ${process.env.BENCH_DURABLE_WORKERS ?? 16} concurrent callers, ${process.env.BENCH_DURABLE_SECONDS ?? 5} s per round after 1 s of warm-up, ${ROUNDS} rotating rounds; every increment landed once per completed request in every round.`,
    `- fenced ÷ fences stripped: ${(fenced / medianOf("fences stripped")).toFixed(2)}× (the store's cost of fencing)`,
  ];
  if (baseline) {
    const before = medianOf(variants[2]!.label);
    lines.push(
      `- fenced ÷ baseline: ${(fenced / before).toFixed(2)}× (fencing in the engine and the store together)`,
    );
  }
  return lines.join("\n");
}
