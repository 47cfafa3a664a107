/**
 * The BASELINE checkout of a before/after run. With `BENCH_BASELINE=<git rev>` set (any revision git names:
 * `main`, `HEAD~3`, a commit), {@link baselineTree} makes, or reuses, a detached git worktree of that commit
 * at `bench/.baseline/<commit>/` (git-ignored), runs `pnpm install --prefer-offline` and `pnpm build` there once,
 * and copies this checkout's benchmark sources into it, as `bench/current-src/` of the baseline tree.
 *
 * A server started from that copy runs this checkout's benchmark app on the baseline's built packages: Node
 * resolves `@flowrt/*` (and express, zod) from the importing file's folder upwards, so from the baseline's
 * `bench/node_modules`, whatever the parent process resolves. The servers report the file `@flowrt/engine`
 * resolved to, and {@link assertLoadsFrom} refuses a run where it is not the expected tree.
 *
 * Remove a baseline with `git worktree remove --force bench/.baseline/<commit>`.
 */
import { execFileSync } from "node:child_process";
import { cpSync, existsSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { join, relative, sep } from "node:path";
import { fileURLToPath } from "node:url";

export interface BaselineTree {
  /** The revision as given in `BENCH_BASELINE`. */
  rev: string;
  /** The full commit it named when the run started. */
  commit: string;
  /** Root of the baseline worktree. */
  root: string;
  /** The baseline's `bench` package folder: the working directory of its servers. */
  benchDir: string;
  /** This checkout's `bench/src`, copied into the baseline's `bench` folder. */
  srcDir: string;
}

const BENCH_DIR = fileURLToPath(new URL("..", import.meta.url));
const REPO_ROOT = fileURLToPath(new URL("../..", import.meta.url));
/** Written last by a successful install and build; its absence means "prepare again". */
const BUILT_STAMP = join("node_modules", ".flowrt-bench-baseline-built");
/** Packages the servers under test import; each must be built in the baseline. */
const SERVED_PACKAGES = ["core", "engine", "express", "store-memory", "store-postgres", "webhooks"];

let prepared: Promise<BaselineTree | undefined> | undefined;

const git = (cwd: string, args: string[]) =>
  execFileSync("git", args, { cwd, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] }).trim();

/** Runs a command with its output on this process's stderr, so the Markdown on stdout stays clean. */
const step = (cwd: string, command: string, args: string[]) => {
  process.stderr.write(`baseline: ${command} ${args.join(" ")} (in ${relative(REPO_ROOT, cwd)})\n`);
  execFileSync(command, args, { cwd, stdio: ["ignore", 2, 2] });
};

function resolveCommit(rev: string): string {
  try {
    return git(REPO_ROOT, ["rev-parse", "--verify", "--end-of-options", `${rev}^{commit}`]);
  } catch {
    throw new Error(`BENCH_BASELINE=${rev}: git names no such commit in ${REPO_ROOT}`);
  }
}

function checkout(root: string, commit: string): void {
  if (existsSync(join(root, ".git"))) {
    const head = git(root, ["rev-parse", "HEAD"]);
    if (head !== commit) {
      throw new Error(
        `${root} is checked out at ${head}, not ${commit}; remove it (git worktree remove --force)`,
      );
    }
    return;
  }
  if (existsSync(root)) {
    throw new Error(`${root} exists but is not a git worktree; remove it and run again`);
  }
  // --force: a baseline folder deleted by hand stays registered with git until pruned; take the name back.
  step(REPO_ROOT, "git", ["worktree", "add", "--detach", "--force", root, commit]);
}

function isBuilt(root: string, commit: string): boolean {
  const stamp = join(root, BUILT_STAMP);
  if (!existsSync(stamp) || readFileSync(stamp, "utf8").trim() !== commit) return false;
  return SERVED_PACKAGES.every((name) => existsSync(join(root, "packages", name, "dist", "index.js")));
}

function build(root: string, commit: string): void {
  step(root, "pnpm", ["install", "--prefer-offline"]);
  step(root, "pnpm", ["build"]);
  writeFileSync(join(root, BUILT_STAMP), `${commit}\n`);
}

async function prepare(rev: string): Promise<BaselineTree> {
  const commit = resolveCommit(rev);
  const root = join(BENCH_DIR, ".baseline", commit);
  checkout(root, commit);
  if (!isBuilt(root, commit)) build(root, commit);
  const benchDir = join(root, "bench");
  if (!existsSync(join(benchDir, "node_modules", "@flowrt", "engine"))) {
    throw new Error(`the baseline's bench package (${benchDir}) does not depend on @flowrt/engine`);
  }
  // A fresh copy every run, so the baseline servers run exactly this checkout's benchmark code.
  const srcDir = join(benchDir, "current-src");
  rmSync(srcDir, { recursive: true, force: true });
  cpSync(join(BENCH_DIR, "src"), srcDir, { recursive: true });
  return { rev, commit, root, benchDir, srcDir };
}

/**
 * The baseline tree named by `BENCH_BASELINE`, prepared on first call (later calls in the same run share it),
 * or `undefined` when the variable is unset or empty: the benchmarks then run as they always did.
 *
 * @example
 * const baseline = await baselineTree();
 * if (baseline) startServer("flowrt", {}, { baseline });
 */
export function baselineTree(): Promise<BaselineTree | undefined> {
  const rev = process.env.BENCH_BASELINE?.trim();
  if (!rev) return Promise.resolve(undefined);
  prepared ??= prepare(rev);
  return prepared;
}

/**
 * Throws unless `entry` (the file a server resolved `@flowrt/engine` to) lies in `tree`'s packages, or, for
 * the current servers (`tree` undefined), in this checkout's packages. Both go through symlinks to real paths.
 */
export function assertLoadsFrom(label: string, entry: string, tree: BaselineTree | undefined): void {
  const packages = realpathSync(join(tree?.root ?? REPO_ROOT, "packages")) + sep;
  if (!realpathSync(entry).startsWith(packages)) {
    throw new Error(`${label} loaded @flowrt/engine from ${entry}, not from ${packages}`);
  }
}

/** How a baseline is named in tables and notes: the revision as given, and the commit it named. */
export const describeBaseline = (tree: BaselineTree) =>
  tree.rev.startsWith(tree.commit.slice(0, 7))
    ? tree.commit.slice(0, 7)
    : `${tree.rev}, ${tree.commit.slice(0, 7)}`;
