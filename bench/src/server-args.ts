/**
 * Node flags for a server under test, read from `<PREFIX>_BENCH_*` environment knobs:
 * - `<PREFIX>_BENCH_SOURCE=1` runs the packages' TypeScript sources (`@flowrt/source`) instead of their built
 *   `dist`, which is what an application runs (the benchmarks build first);
 * - `<PREFIX>_BENCH_CPU_PROF=<dir>` writes a `.cpuprofile` of the child there on exit, named after `name`;
 * - `<PREFIX>_BENCH_NODE_ARGS` adds flags (e.g. `--trace-gc`, `--heap-prof`).
 * The child always loads tsx, for the benchmark's own TypeScript: this checkout's tsx, by file, so a server run
 * from another folder (a baseline tree, `baseline-tree.ts`) compiles the same code the same way.
 */
const TSX = import.meta.resolve("tsx");

export function serverExecArgv(
  prefix: "HTTP" | "WEBHOOK" | "PAGES" | "PAIR" | "INGEST",
  name: string,
): string[] {
  const env = (knob: string) => process.env[`${prefix}_BENCH_${knob}`];
  const profileDir = env("CPU_PROF");
  return [
    ...(env("SOURCE") ? ["--conditions=@flowrt/source"] : []),
    "--import",
    TSX,
    ...(profileDir
      ? ["--cpu-prof", `--cpu-prof-dir=${profileDir}`, `--cpu-prof-name=${name}-${Date.now()}.cpuprofile`]
      : []),
    ...(env("NODE_ARGS")?.split(" ").filter(Boolean) ?? []),
  ];
}
