import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const entry = fileURLToPath(new URL("./page/main.ts", import.meta.url));

/**
 * The page's script, `src/page/main.ts` with `@flowrt/client` bundled in by esbuild: built once when the server
 * starts (in memory, from the workspace's TypeScript sources), never per request, no CDN.
 */
export async function buildPageScript(): Promise<string> {
  const result = await build({
    entryPoints: [entry],
    bundle: true,
    format: "esm",
    platform: "browser",
    target: "es2022",
    conditions: ["@flowrt/source"],
    write: false,
    logLevel: "silent",
  });
  return result.outputFiles[0]!.text;
}
