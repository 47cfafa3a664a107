// The release rehearsal (issue 23): publish the workspace to a local Verdaccio, install each public package
// and the documented combinations from it with plain npm in fresh folders, on Node 24 and Node 22, run each
// README's example there, and measure the installs. Run from the repository root:
//
//   pnpm exec node scripts/release-rehearsal/rehearse.mjs [--table-out <file>]
//
// Exits 1 when anything fails, the size limit of `installPlan` included. See README.md beside this file.
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { createDatabases } from "./create-databases.mjs";
import { ensureTools } from "./ensure-tools.mjs";
import { installPlan } from "./install-plan.mjs";
import { installSize, megabytes, sizeTable } from "./install-size.mjs";
import { mapLimit } from "./map-limit.mjs";
import { publishWorkspace } from "./publish-workspace.mjs";
import { readmeInstall } from "./readme-install.mjs";
import { killAll, mustRun, tail } from "./run-command.mjs";
import { startVerdaccio } from "./start-verdaccio.mjs";
import { takeLock } from "./take-lock.mjs";

const repoDir = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..");
const root = join(tmpdir(), "flowrt-rehearsal");
const runDir = join(root, "run");
const started = Date.now();
const failures = [];
/** @type {Array<{ label: string, node: number, bytes: number, packages: number }>} */
const sizes = [];

const tableOut = process.argv.includes("--table-out")
  ? resolve(process.argv[process.argv.indexOf("--table-out") + 1])
  : undefined;

function log(line) {
  const seconds = ((Date.now() - started) / 1000).toFixed(0).padStart(3);
  process.stdout.write(`${seconds}s ${line}\n`);
}

function indent(text, lines = 12) {
  const all = text.trimEnd().split("\n");
  const shown = all.slice(0, lines).map((line) => `      ${line.slice(0, 200)}`);
  if (all.length > lines) shown.push(`      … ${all.length - lines} more lines`);
  return shown.join("\n");
}

/** The environment a command runs in with `nodeBin` first on PATH. */
function envWithNode(nodeBin, extra = {}, base = process.env) {
  return { ...base, PATH: `${dirname(nodeBin)}:${base.PATH}`, ...extra };
}

/**
 * The environment of a user's shell: without what pnpm sets for this script (`npm_config_*`, `npm_package_*`,
 * …), and without the variables the examples read (a `DATABASE_URL` would make `flowrt serve` choose the
 * Postgres store; the Postgres examples get their own database's URL).
 */
function userEnv() {
  const env = { ...process.env };
  for (const key of Object.keys(env)) {
    if (/^(npm_|pnpm_)|^(INIT_CWD|NODE_OPTIONS|DATABASE_URL|PORT|HOST)$|^FLOWRT_/i.test(key)) delete env[key];
  }
  return env;
}

/** This process's environment without what pnpm set for it (npm would warn about `verify-deps-before-run`). */
function withoutPnpm() {
  const env = { ...process.env };
  for (const key of Object.keys(env)) {
    if (/^pnpm_|^npm_command$|^npm_config_(user_agent|verify_deps_before_run)$/i.test(key)) delete env[key];
  }
  return env;
}

let verdaccio;
let databases;
let releaseLock;
const stopOnSignal = async () => {
  killAll();
  await verdaccio?.stop();
  releaseLock?.();
  process.exit(130);
};
process.once("SIGINT", stopOnSignal);
process.once("SIGTERM", stopOnSignal);

try {
  releaseLock = takeLock(join(root, "rehearsal.lock"));
  rmSync(runDir, { recursive: true, force: true });
  mkdirSync(runDir, { recursive: true });

  const tools = await ensureTools(join(root, "tools"), withoutPnpm());
  log(`tools ${tools.reused ? "reused" : "installed"} in ${join(root, "tools")}: verdaccio, node 22`);

  const uplink = (await mustRun("npm", ["config", "get", "registry"], { env: withoutPnpm() })).stdout.trim();
  verdaccio = await startVerdaccio({
    verdaccio: tools.verdaccio,
    storageDir: join(root, "verdaccio-storage"),
    runDir,
    uplink,
  });
  log(`verdaccio on ${verdaccio.registry} (@flowrt/* local only, the rest proxied to ${uplink})`);

  const published = await publishWorkspace({
    repoDir,
    scratchDir: join(runDir, "workspace"),
    registry: verdaccio.registry,
    token: verdaccio.token,
    env: envWithNode(process.execPath),
    log,
  });

  const nodes = [
    { major: 24, bin: process.execPath },
    { major: 22, bin: tools.node22 },
  ];
  databases = await createDatabases(
    repoDir,
    nodes.map((node) => `flowrt_rehearsal_node${node.major}`),
  );
  writeFileSync(join(runDir, "npmrc"), "");
  await Promise.all(nodes.map((node) => rehearseOn(node, published, databases.urls.shift())));
} catch (error) {
  failures.push(`rehearsal: ${error.message}`);
  log(`FAILED: ${error.message}`);
} finally {
  await verdaccio?.stop();
  await databases?.drop();
}

if (sizes.length > 0) {
  const order = installPlan.flatMap((planned) => [`${planned.alone} alone`, planned.label]);
  const table = sizeTable(sizes.sort((a, b) => order.indexOf(a.label) - order.indexOf(b.label)));
  process.stdout.write(`\n${table}\n\n`);
  if (tableOut) writeFileSync(tableOut, `${table}\n`);
}
for (const failure of failures) process.stdout.write(`FAILED ${failure.split("\n")[0]}\n`);
releaseLock?.();
log(`release rehearsal ${failures.length === 0 ? "passed" : `failed (${failures.length})`}`);
process.exit(failures.length === 0 ? 0 : 1);

/**
 * Every install of the plan on one Node: a fresh folder each (its own package.json and .npmrc naming the
 * Verdaccio registry), plain `npm install` run on that Node, one npm cache for the whole run.
 */
async function rehearseOn(node, published, databaseUrl) {
  const versions = new Map(published.map((p) => [p.name, p.version]));
  /** @type {Map<string, Promise<string>>} each plan id's folder, once installed */
  const folders = new Map();
  const env = envWithNode(node.bin, { npm_config_userconfig: join(runDir, "npmrc") }, userEnv());
  const npmInstall = (dir, names) =>
    mustRun(
      "npm",
      [
        "install",
        "--no-audit",
        "--no-fund",
        "--prefer-offline",
        "--loglevel=error",
        `--cache=${join(runDir, "npm-cache")}`,
        ...names,
      ],
      { cwd: dir, env, timeoutMs: 300_000 },
    );
  const measure = async (dir, label, maxBytes) => {
    const size = await installSize(dir);
    sizes.push({ label, node: node.major, ...size });
    const over = maxBytes !== undefined && size.bytes > maxBytes;
    if (over)
      failures.push(
        `node ${node.major}: ${label} is ${megabytes(size.bytes)} MB, over ${megabytes(maxBytes)} MB`,
      );
    return `${size.packages} packages, ${megabytes(size.bytes)} MB${over ? ` (over the ${megabytes(maxBytes)} MB limit)` : ""}`;
  };

  // Two installs at a time per Node (npm waits on the registry as much as on the CPU). An example that needs
  // another install's folder (the client's needs the CLI's) awaits it.
  const installedFolder = new Map(installPlan.map((planned) => [planned.id, Promise.withResolvers()]));
  for (const [id, { promise }] of installedFolder) {
    folders.set(id, promise);
    promise.catch(() => {});
  }
  await mapLimit(installPlan, 2, async (planned) => {
    const tag = `[node${node.major} ${planned.id}]`;
    const dir = join(root, `${planned.id}-node${node.major}`);
    const ready = installedFolder.get(planned.id);
    try {
      rmSync(dir, { recursive: true, force: true });
      mkdirSync(dir, { recursive: true });
      writeFileSync(
        join(dir, "package.json"),
        `${JSON.stringify({ name: `rehearsal-${planned.id}`, private: true, type: "module" }, null, 2)}\n`,
      );
      writeFileSync(join(dir, ".npmrc"), `registry=${verdaccio.registry}\nupdate-notifier=false\n`);
      const installed = (name) => join(dir, "node_modules", name);

      let names;
      if (planned.alone !== undefined) {
        if (!versions.has(planned.alone)) throw new Error(`${planned.alone} was not published`);
        await npmInstall(dir, [planned.alone]);
        const summary = await measure(dir, `${planned.alone} alone`);
        const { stdout } = await mustRun(
          node.bin,
          [
            "--input-type=module",
            "-e",
            `const m = await import(${JSON.stringify(planned.alone)}); console.log(Object.keys(m).length);`,
          ],
          { cwd: dir, env },
        );
        log(`${tag} npm install ${planned.alone}: ${summary}; import: ${stdout.trim()} exports`);
        names = planned.extras ?? [];
        const named = readmeInstall(installed(planned.alone));
        const unnamed = names.filter((name) => !named.includes(name));
        if (!planned.extrasFromExample && unnamed.length > 0) {
          throw new Error(`the README's install lines no longer name ${unnamed.join(", ")}`);
        }
      } else {
        names = planned.combination;
      }
      if (names.length > 0) {
        await npmInstall(dir, names);
        log(`${tag} npm install ${names.join(" ")}: ${await measure(dir, planned.label, planned.maxBytes)}`);
      }
      ready.resolve(dir);

      const ctx = { dir, node: node.bin, env, installed, databaseUrl, folders };
      const output = await planned.example(ctx);
      log(`${tag} README example ran${planned.note ? ` (${planned.note})` : ""}:\n${indent(output)}`);
    } catch (error) {
      ready.reject(error);
      failures.push(`node ${node.major} ${planned.id}: ${error.message}`);
      log(`${tag} FAILED: ${tail(error.message, 25)}`);
    }
  });
}
