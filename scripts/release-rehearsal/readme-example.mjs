import { readFileSync } from "node:fs";
import { join } from "node:path";

/**
 * The first `ts` block after the line `heading` of a package's README (the README's first block without a
 * heading): the same rule the packages' `src/readme-example.test.ts` files use to find their examples.
 *
 * @param {string} packageDir the package's folder (its published README.md is read)
 * @param {string} [heading] e.g. "## Standalone (runnable)"
 */
export function readmeExample(packageDir, heading) {
  const readme = readFileSync(join(packageDir, "README.md"), "utf8");
  const from = heading === undefined ? 0 : readme.indexOf(`\n${heading}\n`);
  if (from < 0) throw new Error(`${packageDir}/README.md has no heading "${heading}"`);
  const code = /```ts\n([\s\S]*?)```/.exec(readme.slice(from))?.[1];
  if (code === undefined)
    throw new Error(`${packageDir}/README.md has no ts block after "${heading ?? "the start"}"`);
  return code;
}

/**
 * `code` with `from` replaced by `to`, refusing a README whose text no longer holds `from` (the
 * rehearsal would otherwise run an example nobody wrote).
 */
export function replaceOnce(code, from, to) {
  if (!code.includes(from)) throw new Error(`the README example no longer contains ${JSON.stringify(from)}`);
  return code.replace(from, to);
}
