import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { mustRun } from "./run-command.mjs";

/**
 * What an install weighs: `du -sb node_modules` (apparent bytes) and the number of installed packages
 * (folders under node_modules, nested ones included, that hold a package.json; `.bin` and `.cache` aside).
 *
 * @param {string} dir the folder `npm install` ran in
 * @returns {Promise<{ bytes: number, packages: number }>}
 */
export async function installSize(dir) {
  const { stdout } = await mustRun("du", ["-sb", "node_modules"], { cwd: dir });
  return { bytes: Number(stdout.split("\t")[0]), packages: countPackages(join(dir, "node_modules")) };
}

function countPackages(nodeModules) {
  if (!existsSync(nodeModules)) return 0;
  let count = 0;
  for (const entry of readdirSync(nodeModules, { withFileTypes: true })) {
    if (!entry.isDirectory() || entry.name.startsWith(".")) continue;
    const dirs = entry.name.startsWith("@")
      ? readdirSync(join(nodeModules, entry.name), { withFileTypes: true })
          .filter((scoped) => scoped.isDirectory())
          .map((scoped) => join(nodeModules, entry.name, scoped.name))
      : [join(nodeModules, entry.name)];
    for (const dir of dirs) {
      if (existsSync(join(dir, "package.json"))) count++;
      count += countPackages(join(dir, "node_modules"));
    }
  }
  return count;
}

/** Bytes as megabytes (10^6), one decimal. */
export function megabytes(bytes) {
  return (bytes / 1e6).toFixed(1);
}

/**
 * The measured installs as a markdown table: one row per install, one pair of columns per Node version.
 *
 * @param {Array<{ label: string, node: number, bytes: number, packages: number }>} rows
 */
export function sizeTable(rows) {
  const nodes = [...new Set(rows.map((row) => row.node))].sort((a, b) => b - a);
  const labels = [...new Set(rows.map((row) => row.label))];
  const lines = [
    `| install | ${nodes.map((node) => `packages (Node ${node}) | size (Node ${node})`).join(" | ")} |`,
    `|---|${nodes.map(() => "---:|---:").join("|")}|`,
  ];
  for (const label of labels) {
    const cells = nodes.map((node) => {
      const row = rows.find((r) => r.label === label && r.node === node);
      return row ? `${row.packages} | ${megabytes(row.bytes)} MB` : "– | –";
    });
    lines.push(`| ${label} | ${cells.join(" | ")} |`);
  }
  return lines.join("\n");
}
