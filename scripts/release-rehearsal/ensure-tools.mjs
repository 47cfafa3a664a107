import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { mustRun } from "./run-command.mjs";

// Verdaccio 6 depends, through an old @verdaccio/* package, on `node-fetch@cjs`, a dist-tag the registry
// does not have; npm then stops with ETARGET. node-fetch 2.7.0 is the CommonJS line that tag meant.
const TOOLS_PACKAGE = {
  name: "flowrt-rehearsal-tools",
  private: true,
  dependencies: { verdaccio: "^6.0.0", node: "^22.0.0" },
  overrides: { "node-fetch": "2.7.0" },
};

/**
 * Installs the rehearsal's tools from npm, outside the workspace: Verdaccio (the registry it publishes to)
 * and Node 22 (the `node` package, whose install downloads that Node's binary). A folder already holding
 * these tools is reused.
 *
 * @param {string} toolsDir
 * @param {NodeJS.ProcessEnv} env
 * @returns {Promise<{ verdaccio: string, node22: string, reused: boolean }>}
 */
export async function ensureTools(toolsDir, env) {
  mkdirSync(toolsDir, { recursive: true });
  const manifest = `${JSON.stringify(TOOLS_PACKAGE, null, 2)}\n`;
  const stamp = join(toolsDir, "node_modules", ".rehearsal-tools.json");
  const tools = {
    verdaccio: join(toolsDir, "node_modules", "verdaccio", "bin", "verdaccio"),
    node22: join(toolsDir, "node_modules", "node", "bin", "node"),
  };
  const ready = () => existsSync(tools.verdaccio) && existsSync(tools.node22);
  if (ready() && existsSync(stamp) && readFileSync(stamp, "utf8") === manifest) {
    return { ...tools, reused: true };
  }
  writeFileSync(join(toolsDir, "package.json"), manifest);
  await mustRun("npm", ["install", "--no-audit", "--no-fund", "--loglevel=error", "--no-package-lock"], {
    cwd: toolsDir,
    env,
    timeoutMs: 300_000,
  });
  if (!ready()) throw new Error(`npm install in ${toolsDir} left no verdaccio or node 22 binary`);
  writeFileSync(stamp, manifest);
  return { ...tools, reused: false };
}
