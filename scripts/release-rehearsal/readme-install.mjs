import { readFileSync } from "node:fs";
import { join } from "node:path";

/**
 * The packages a README's first `sh` block installs (`pnpm add …`, `npm install …`, `npm i …` lines; `-D`
 * lines included, `@types/*` left out: the examples run on Node's type stripping, which reads no types).
 *
 * @param {string} packageDir the package's folder (its published README.md is read)
 * @returns {string[]}
 */
export function readmeInstall(packageDir) {
  const readme = readFileSync(join(packageDir, "README.md"), "utf8");
  const block = /```sh\n([\s\S]*?)```/.exec(readme)?.[1] ?? "";
  const names = [];
  for (const line of block.split("\n")) {
    const words = line.replace(/#.*$/, "").trim().split(/\s+/);
    const command = words.slice(0, 2).join(" ");
    if (!["pnpm add", "npm install", "npm i"].includes(command)) continue;
    for (const word of words.slice(2)) {
      if (word.startsWith("-") || word.startsWith("@types/") || names.includes(word)) continue;
      names.push(word);
    }
  }
  return names;
}
