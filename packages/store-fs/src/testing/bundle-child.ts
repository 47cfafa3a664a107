import path from "node:path";
import { build } from "esbuild";

/**
 * Bundles a child-process script (TypeScript, importing this workspace's sources) into one ES module file in
 * `outDir`, and returns its path. A test that starts a child many times runs the bundle with plain `node`: the
 * child then starts in tens of milliseconds instead of loading every source file through a TypeScript loader.
 */
export async function bundleChild(entry: string, outDir: string): Promise<string> {
  const outfile = path.join(outDir, `${path.basename(entry, ".ts")}.mjs`);
  await build({
    entryPoints: [entry],
    outfile,
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node22",
    conditions: ["@flowrt/source"],
    logLevel: "error",
  });
  return outfile;
}
