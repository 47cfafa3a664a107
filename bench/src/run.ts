/**
 * `pnpm bench [name…]` runs the named benchmarks (all by default) and prints their tables.
 * Each benchmark module exports `run(): Promise<string>` returning Markdown.
 */
const benchmarks: Record<string, () => Promise<{ run: () => Promise<string> }>> = {
  stores: () => import("./stores.bench.js"),
};

const wanted = process.argv.slice(2).filter((a) => !a.startsWith("-"));
const names = wanted.length > 0 ? wanted : Object.keys(benchmarks);
for (const name of names) {
  const load = benchmarks[name];
  if (!load) {
    console.error(`unknown benchmark "${name}"; known: ${Object.keys(benchmarks).join(", ")}`);
    process.exit(2);
  }
  console.log(`\n## ${name}\n`);
  console.log(await (await load()).run());
}
