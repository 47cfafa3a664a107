/**
 * The before/after table of a run with a baseline tree (`BENCH_BASELINE`, see `baseline-tree.ts`): per route,
 * the baseline's and this checkout's throughput, their ratio, each one's ratio against the bare server measured
 * in the same rounds, and CPU per request; then whether no route got slower by more than 5 % (issue 18's bar).
 * Every figure is a median of rounds; the per-round ratios pair the two flowrt runs of the same round.
 */
import { formatTable } from "./measure.js";

/** The largest slowdown of current against baseline that still counts as "no slower": 5 %. */
export const MAX_SLOWDOWN = 0.05;

/** One server's rounds on one route, in round order. */
export interface RoundFigures {
  /** Throughput per round (2xx or responses per second, as the benchmark counts it). */
  rps: number[];
  /** Server CPU µs per request per round. */
  cpuUsPerReq: number[];
}

export interface BeforeAfterRoute {
  route: string;
  baseline: RoundFigures;
  current: RoundFigures;
  bare: RoundFigures;
}

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** `items` turned left by `by` places: the order of round `by` when every server should take every place. */
export const rotate = <T>(items: readonly T[], by: number): T[] =>
  items.map((_, i) => items[(i + by) % items.length]!);

const holds = (ratio: number) => ratio >= 1 - MAX_SLOWDOWN;

/**
 * Markdown: the table, then a verdict line. `baselineName` says which revision the baseline is.
 *
 * @example
 * beforeAfterTable("HEAD~3, 1a2b3c4", [{ route: "GET item state", baseline, current, bare }]);
 */
export function beforeAfterTable(baselineName: string, routes: BeforeAfterRoute[]): string {
  const slower: string[] = [];
  const rows = routes.map(({ route, baseline, current, bare }) => {
    const [b, c, x] = [median(baseline.rps), median(current.rps), median(bare.rps)];
    const ratio = c / b;
    if (!holds(ratio)) slower.push(`${route} ${ratio.toFixed(3)}×`);
    return {
      route,
      "baseline req/s": Math.round(b),
      "current req/s": Math.round(c),
      // Three places: a ratio shown as 0.95 could be on either side of the bar.
      "current ÷ baseline": ratio.toFixed(3),
      "baseline ÷ bare": b / x,
      "current ÷ bare": c / x,
      "baseline CPU µs/req": Math.round(median(baseline.cpuUsPerReq)),
      "current CPU µs/req": Math.round(median(current.cpuUsPerReq)),
      "current ÷ baseline per round": current.rps.map((r, i) => (r / baseline.rps[i]!).toFixed(2)).join(", "),
      [`≤ ${MAX_SLOWDOWN * 100} % slower`]: holds(ratio) ? "yes" : "NO",
    };
  });
  const verdict = slower.length === 0 ? "holds" : `does NOT hold (${slower.join("; ")})`;
  return [
    `Before and after: baseline (${baselineName}) against this checkout, in the same rounds.`,
    "",
    formatTable(rows),
    "",
    `- no route slower by more than ${MAX_SLOWDOWN * 100} % (current ÷ baseline req/s, medians of rounds): ${verdict}.`,
    "- baseline and current run the same benchmark code (this checkout's); only the `@flowrt/*` packages differ, " +
      "each side loading its own tree's.",
  ].join("\n");
}
