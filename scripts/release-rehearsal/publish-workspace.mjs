import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { mapLimit } from "./map-limit.mjs";
import { mustRun } from "./run-command.mjs";

/**
 * Rehearses the release on a copy of the working tree: installs it, builds the packages, applies the
 * pending changesets (`changeset version`) and publishes every public package to `registry`. The copy has
 * its own `.npmrc` (registry and token); nothing outside `scratchDir` is written.
 *
 * The build runs before `changeset version`, with the repository's turbo cache: a version bump changes no
 * built file, and the cache's keys (which include `package.json`) still match the tree as CI just built it,
 * so turbo restores rather than recompiles. Source that differs from the last build is compiled.
 *
 * @param {{ repoDir: string, scratchDir: string, registry: string, token: string, env: NodeJS.ProcessEnv,
 *   log: (line: string) => void }} options
 * @returns {Promise<Array<{ name: string, version: string, dir: string }>>} the published packages
 */
export async function publishWorkspace({ repoDir, scratchDir, registry, token, env, log }) {
  rmSync(scratchDir, { recursive: true, force: true });
  mkdirSync(scratchDir, { recursive: true });
  // Tracked and untracked files, as `git status` sees the tree (ignored ones, such as node_modules and dist, left out).
  const { stdout } = await mustRun("git", ["ls-files", "-z", "--cached", "--others", "--exclude-standard"], {
    cwd: repoDir,
  });
  const files = stdout.split("\0").filter((file) => file !== "" && existsSync(join(repoDir, file)));
  const list = join(scratchDir, "..", "workspace-files.txt");
  writeFileSync(list, files.join("\0"));
  await mustRun("tar", ["--null", "-T", list, "-cf", join(scratchDir, "..", "workspace.tar")], {
    cwd: repoDir,
  });
  await mustRun("tar", ["-xf", join(scratchDir, "..", "workspace.tar")], { cwd: scratchDir });
  log(`copied ${files.length} files of the working tree to ${scratchDir}`);

  // --ignore-scripts: the copy needs no postinstall (the root `node` package's would fetch a binary); the
  // scripts below run on this script's own Node, put first on PATH.
  const install = ["install", "--frozen-lockfile", "--ignore-scripts", "--reporter=silent"];
  try {
    await mustRun("pnpm", [...install, "--offline"], { cwd: scratchDir, env, timeoutMs: 300_000 });
  } catch {
    await mustRun("pnpm", install, { cwd: scratchDir, env, timeoutMs: 300_000 });
  }
  const build = await mustRun(
    "pnpm",
    [
      "exec",
      "turbo",
      "run",
      "build",
      "--filter=./packages/*",
      `--cache-dir=${join(repoDir, ".turbo", "cache")}`,
      "--output-logs=errors-only",
    ],
    { cwd: scratchDir, env, timeoutMs: 600_000 },
  );
  const cached = /Cached:\s+(\d+) cached, (\d+) total/.exec(build.stdout);
  log(`built the packages${cached ? ` (${cached[1]} of ${cached[2]} from the turbo cache)` : ""}`);

  const before = publicPackages(scratchDir);
  await mustRun("pnpm", ["exec", "changeset", "version"], { cwd: scratchDir, env });
  const published = publicPackages(scratchDir);
  log(
    `changeset version: ${published
      .map((p) => `${p.name} ${before.find((b) => b.name === p.name)?.version} -> ${p.version}`)
      .join(", ")}`,
  );

  const { host, pathname } = new URL(registry);
  writeFileSync(
    join(scratchDir, ".npmrc"),
    `registry=${registry}\n//${host}${pathname}:_authToken=${token}\n`,
  );
  // One `pnpm publish` per package (it swaps `workspace:` ranges for versions), a few at a time: `pnpm -r
  // publish` goes one by one.
  await mapLimit(published, 3, ({ dir }) =>
    mustRun("pnpm", ["publish", "--no-git-checks", "--access=public"], { cwd: dir, env, timeoutMs: 300_000 }),
  );
  for (const { name, version } of published) {
    const res = await fetch(`${registry}${name.replace("/", "%2f")}`);
    const body = res.ok ? await res.json() : {};
    if (body.versions?.[version] === undefined) throw new Error(`${name}@${version} is not on ${registry}`);
  }
  log(`published ${published.length} packages to ${registry}`);
  return published;
}

/** The workspace's packages under packages/ that are not private. */
function publicPackages(root) {
  return readdirSync(join(root, "packages"), { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && existsSync(join(root, "packages", entry.name, "package.json")))
    .map((entry) => {
      const dir = join(root, "packages", entry.name);
      const pkg = JSON.parse(readFileSync(join(dir, "package.json"), "utf8"));
      return { name: pkg.name, version: pkg.version, private: pkg.private === true, dir };
    })
    .filter((pkg) => !pkg.private)
    .map(({ name, version, dir }) => ({ name, version, dir }));
}
