/**
 * Splits a `.cpuprofile` of the pair server (`pair.bench.ts`, `PAIR_BENCH_CPU_PROF=<dir>`) by side: a JavaScript
 * frame belongs to the baseline when its file lies in the baseline's tree, to this checkout when it lies in this one,
 * and is shared otherwise (Node's internals, native code, the garbage collector, idle, tsx). The baseline's and the
 * current's self samples are each side's own JavaScript work, whatever the other load on the machine did to the
 * shared part; over rounds of equal length they compare per request once divided by the requests each side served.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";

interface ProfileNode {
  id: number;
  callFrame: { url: string };
}

const COMPILER = /\/node_modules\/\.pnpm\/(tsx|esbuild|get-tsconfig)@/;

export interface SideSamples {
  baseline: number;
  current: number;
  shared: number;
  /** The sampling interval in µs (the profile's average). */
  intervalUs: number;
  file: string;
}

/** The newest `.cpuprofile` in `dir`, its self samples by side. */
export function samplesBySide(dir: string, baselineRoot: string, currentRoot: string): SideSamples {
  const files = readdirSync(dir)
    .filter((name) => name.endsWith(".cpuprofile"))
    .map((name) => join(dir, name))
    .sort((a, b) => statSync(b).mtimeMs - statSync(a).mtimeMs);
  const file = files[0];
  if (!file) throw new Error(`no .cpuprofile in ${dir}`);
  const profile = JSON.parse(readFileSync(file, "utf8")) as {
    nodes: ProfileNode[];
    samples: number[];
    startTime: number;
    endTime: number;
  };
  const sideOf = new Map<number, keyof Omit<SideSamples, "intervalUs" | "file">>();
  for (const node of profile.nodes) {
    const path = node.callFrame.url.replace(/^file:\/\//, "");
    // The baseline tree sits inside this checkout (bench/.baseline/…): test it first. tsx (which compiles both
    // sides' benchmark files at start) is this checkout's, but its work is shared.
    sideOf.set(
      node.id,
      COMPILER.test(path)
        ? "shared"
        : path.startsWith(baselineRoot)
          ? "baseline"
          : path.startsWith(currentRoot)
            ? "current"
            : "shared",
    );
  }
  const out: SideSamples = { baseline: 0, current: 0, shared: 0, intervalUs: 0, file };
  for (const id of profile.samples) out[sideOf.get(id) ?? "shared"]++;
  out.intervalUs = (profile.endTime - profile.startTime) / Math.max(1, profile.samples.length);
  return out;
}
