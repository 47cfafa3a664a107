/**
 * `pnpm bench [name…]` runs the named benchmarks (all by default) and prints their tables. A benchmark
 * is a file `src/<name>.bench.ts` exporting `run(): Promise<string>` that returns Markdown.
 */
import { readdirSync } from "node:fs";

const dir = new URL(".", import.meta.url);
const available = readdirSync(dir)
  .filter((file) => file.endsWith(".bench.ts"))
  .map((file) => file.slice(0, -".bench.ts".length))
  .sort();

const wanted = process.argv.slice(2).filter((a) => !a.startsWith("-"));
const names = wanted.length > 0 ? wanted : available;
for (const name of names) {
  if (!available.includes(name)) {
    console.error(`unknown benchmark "${name}"; known: ${available.join(", ")}`);
    process.exit(2);
  }
  console.log(`\n## ${name}\n`);
  const module = (await import(new URL(`./${name}.bench.ts`, dir).href)) as { run: () => Promise<string> };
  console.log(await module.run());
}
