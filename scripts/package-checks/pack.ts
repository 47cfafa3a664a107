import { execFile } from "node:child_process";
import { readdirSync } from "node:fs";
import { promisify } from "node:util";

const run = promisify(execFile);

/**
 * Packs a package as it would be published (`pnpm pack`: `workspace:` ranges become versions, `files` applies)
 * into `destination`, and returns the tarball's path.
 */
export async function pack(dir: string, destination: string): Promise<string> {
  const before = new Set(readdirSync(destination));
  await run("pnpm", ["pack", "--pack-destination", destination], { cwd: dir, maxBuffer: 16 * 1024 * 1024 });
  const made = readdirSync(destination).filter((name) => name.endsWith(".tgz") && !before.has(name));
  if (made.length !== 1) throw new Error(`pnpm pack in ${dir} made ${made.length} tarballs`);
  return `${destination}/${made[0]}`;
}
