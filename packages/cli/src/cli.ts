#!/usr/bin/env node
import { spawn } from "node:child_process";
import { createRequire } from "node:module";
import { parseArgs } from "node:util";
import { isFlowError } from "@flowrt/core";
import { DEV_MARK, devBanner, devServeArguments, findPublicDir, loadInspector } from "./cli/dev.js";
import { loadEnvFile } from "./cli/env-file.js";
import { storeFromEnvironment } from "./cli/environment.js";
import { eraseUserData } from "./cli/erase-user.js";
import { loadFlowsModule } from "./cli/load-flows-module.js";
import { serveFlows } from "./cli/serve.js";
import { UsageError } from "./cli/store-spec.js";

/** This package's version (`package.json` sits one folder above both `src/` and `dist/`). */
const { version } = createRequire(import.meta.url)("../package.json") as { version: string };

const USAGE = `Usage: flowrt serve <module> [options]
       flowrt dev <module> [options]
       flowrt erase-user --user <id> [--org <id>] [--store <spec>] <module>
       flowrt --version

serve: serves the flows a module exports (a default array, a named "flows" array, or every exported flow
definition; optional named exports "resolvePrincipal", "webhookProviders" and "inbound", an array of
custom inbound adapters whose routes are served beside the API). TypeScript modules load through Node's
type stripping, or tsx when it is installed.

dev: serves the module for development and restarts when a file in its folder changes: on the filesystem store
(.flowrt/) unless --store or $FLOWRT_STORE says otherwise, .env read when present, the development inspector on
(@flowrt/inspector's page when it is installed), a public/ folder beside the module served at /, no grace period.
Prints the API, OpenAPI, page and inspector URLs.

erase-user: removes every session of a user in every flow (running requests aborted, sessions beneath
them, everything stored under them), their user-scope data and their request records from the store the
module is served on; org-scope data is kept. With --org, only their sessions and requests in that org.
Prints what was removed as JSON.

serve drains on SIGTERM and SIGINT: /readyz turns 503 and new work is refused at once, running requests get
the grace period, durable ones still running then are left for the next host's recovery; then it exits 0.

Options (a flag wins over the environment; --env-file fills what the environment does not set):
  --port <n>          port to listen on (0 picks a free one)      default: $PORT or 3000
  --host <address>    address to bind                             default: $HOST or 127.0.0.1
  --store <spec>      memory | fs:<dir> | postgres:<url>          default: $FLOWRT_STORE, else
                                                                  postgres:$DATABASE_URL when set, else memory
  --base-path <path>  where the API is mounted                    default: /api/flows
  --grace-ms <n>      serve: how long running requests may finish
                      on SIGTERM/SIGINT                           default: $FLOWRT_GRACE_MS or 8000
  --env-file <path>   reads KEY=value lines into the environment (variables already set are kept)
  --user <id>         erase-user: the user whose data goes
  --org <id>          erase-user: only what the user has in this org
  -v, --version       print the version
  -h, --help          show this help
`;

/** Within Docker's default stop timeout (10 s) and Kubernetes' default grace (30 s). */
const DEFAULT_GRACE_MS = 8_000;

function parseGrace(value: string, name: string): number {
  if (!/^\d{1,9}$/.test(value)) {
    throw new UsageError(`${name} must be a whole number of milliseconds (got "${value}").`);
  }
  return Number(value);
}

function parsePort(value: string): number {
  if (!/^\d{1,5}$/.test(value) || Number(value) > 65_535) {
    throw new UsageError(`--port must be an integer from 0 to 65535 (got "${value}").`);
  }
  return Number(value);
}

/** Runs the CLI; resolves to an exit code, or stays up (serving) until a signal arrives. */
async function main(argv: string[], env: NodeJS.ProcessEnv = process.env): Promise<number | undefined> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    strict: true,
    options: {
      port: { type: "string" },
      host: { type: "string" },
      store: { type: "string" },
      "base-path": { type: "string" },
      user: { type: "string" },
      org: { type: "string" },
      "grace-ms": { type: "string" },
      "env-file": { type: "string" },
      version: { type: "boolean", short: "v" },
      help: { type: "boolean", short: "h" },
    },
  });
  if (values.version) {
    process.stdout.write(`${version}\n`);
    return 0;
  }
  if (values.help || positionals.length === 0) {
    process.stdout.write(USAGE);
    return values.help ? 0 : 1;
  }
  const [command, modulePath, ...extra] = positionals;
  if (command !== "serve" && command !== "erase-user" && command !== "dev") {
    throw new UsageError(`Unknown command "${command}". Try: flowrt serve <module>.`);
  }
  if (!modulePath) throw new UsageError(`flowrt ${command} needs the path of a flows module.`);
  if (extra.length > 0) throw new UsageError(`Unexpected arguments: ${extra.join(" ")}.`);
  // Before anything reads the environment, the flows module included (its API keys, say).
  if (values["env-file"] !== undefined) loadEnvFile(values["env-file"], env);
  if (command === "erase-user") return eraseUser(modulePath, values, env);
  for (const option of ["user", "org"] as const) {
    if (values[option] !== undefined) throw new UsageError(`--${option} is an option of flowrt erase-user.`);
  }
  if (command === "dev") return dev(modulePath, values, env);
  const developing = env[DEV_MARK] === "1";

  // An empty PORT or HOST counts as unset.
  const port = parsePort(values.port ?? (env.PORT || "3000"));
  const host = values.host ?? (env.HOST || "127.0.0.1");
  const store = storeFromEnvironment(values.store, env);
  const graceMs =
    values["grace-ms"] !== undefined
      ? parseGrace(values["grace-ms"], "--grace-ms")
      : env.FLOWRT_GRACE_MS
        ? parseGrace(env.FLOWRT_GRACE_MS, "FLOWRT_GRACE_MS")
        : DEFAULT_GRACE_MS;
  const module = await loadFlowsModule(modulePath);
  const devParts = developing
    ? { inspector: await loadInspector(), publicDir: findPublicDir(modulePath, process.cwd()) }
    : undefined;
  const server = await serveFlows(module, {
    port,
    host,
    store,
    graceMs,
    ...(values["base-path"] !== undefined ? { basePath: values["base-path"] } : {}),
    ...(devParts !== undefined
      ? {
          dev: {
            ...(devParts.inspector ? { inspector: devParts.inspector } : {}),
            ...(devParts.publicDir !== undefined ? { publicDir: devParts.publicDir } : {}),
          },
        }
      : {}),
  });
  let stopping = false;
  const stop = (signal: NodeJS.Signals) => {
    if (stopping) {
      // A second signal (a second Ctrl-C): stop waiting. Durable work still running lapses to recovery.
      process.stderr.write(`flowrt: ${signal} again, exiting without waiting\n`);
      process.exit(1);
    }
    stopping = true;
    process.stdout.write(`flowrt: ${signal}, draining (up to ${graceMs} ms)\n`);
    server.close().then(
      () => process.exit(0),
      (error: unknown) => {
        process.stderr.write(
          `flowrt: shutdown failed: ${error instanceof Error ? error.message : String(error)}\n`,
        );
        process.exit(1);
      },
    );
  };
  process.on("SIGINT", stop);
  process.on("SIGTERM", stop);
  // Said once the signals are handled: a supervisor that stops the process as soon as it reads this line must not
  // meet the default action (an exit without the drain).
  process.stdout.write(`flowrt listening on ${server.url}\n`);
  if (devParts !== undefined) {
    const origin = new URL(server.url).origin;
    process.stdout.write(
      devBanner(server.url, origin, {
        inspector: devParts.inspector !== undefined,
        page: devParts.publicDir !== undefined,
      }),
    );
  }
  return undefined;
}

/**
 * `flowrt dev`: runs `flowrt serve` under Node's watch mode (see {@link devServeArguments}), passes SIGINT and SIGTERM
 * on to it, and exits as it does.
 */
async function dev(
  modulePath: string,
  values: {
    port?: string;
    host?: string;
    store?: string;
    "base-path"?: string;
    "env-file"?: string;
    "grace-ms"?: string;
  },
  env: NodeJS.ProcessEnv,
): Promise<number> {
  if (values["grace-ms"] !== undefined) throw new UsageError("--grace-ms is an option of flowrt serve.");
  const args = devServeArguments(
    {
      modulePath,
      ...(values.port !== undefined ? { port: values.port } : {}),
      ...(values.host !== undefined ? { host: values.host } : {}),
      ...(values.store !== undefined ? { store: values.store } : {}),
      ...(values["base-path"] !== undefined ? { basePath: values["base-path"] } : {}),
      ...(values["env-file"] !== undefined ? { envFile: values["env-file"] } : {}),
    },
    { cliPath: process.argv[1]!, cwd: process.cwd(), env, execArgv: process.execArgv },
  );
  const child = spawn(process.execPath, args, {
    stdio: "inherit",
    env: { ...env, [DEV_MARK]: "1", NODE_ENV: env.NODE_ENV || "development" },
  });
  const forward = (signal: NodeJS.Signals) => child.kill(signal);
  process.on("SIGINT", forward);
  process.on("SIGTERM", forward);
  return new Promise<number>((resolve) => {
    child.once("exit", (code, signal) =>
      resolve(code ?? (signal === "SIGINT" || signal === "SIGTERM" ? 0 : 1)),
    );
  });
}

/** `flowrt erase-user`: checks the options before any module or store is opened, prints the counts as JSON. */
async function eraseUser(
  modulePath: string,
  values: {
    user?: string;
    org?: string;
    store?: string;
    port?: string;
    host?: string;
    "base-path"?: string;
    "grace-ms"?: string;
  },
  env: NodeJS.ProcessEnv,
): Promise<number> {
  for (const option of ["port", "host", "base-path", "grace-ms"] as const) {
    if (values[option] !== undefined) throw new UsageError(`--${option} is an option of flowrt serve.`);
  }
  if (values.user === undefined) throw new UsageError("flowrt erase-user needs --user <id>.");
  const store = storeFromEnvironment(values.store, env);
  const module = await loadFlowsModule(modulePath);
  const removed = await eraseUserData(module, {
    store,
    userId: values.user,
    ...(values.org !== undefined ? { orgId: values.org } : {}),
  });
  process.stdout.write(
    `${JSON.stringify({ userId: values.user, ...(values.org !== undefined ? { orgId: values.org } : {}), removed })}\n`,
  );
  return 0;
}

main(process.argv.slice(2)).then(
  (code) => {
    if (code !== undefined) process.exitCode = code;
  },
  (error: unknown) => {
    const code = (error as { code?: unknown }).code;
    // Mistakes in the command line or the flows module, and what failed the start (a module that throws, a
    // database that refuses, a port in use), are told in one line: the error's message, named by its class
    // when it is not one of ours. FLOWRT_DEBUG=1 prints the stack as well.
    const ours =
      error instanceof UsageError ||
      isFlowError(error) ||
      (typeof code === "string" && code.startsWith("ERR_PARSE_ARGS"));
    const message = error instanceof Error ? error.message : String(error);
    const named = ours || !(error instanceof Error) ? message : `${error.name}: ${message}`;
    const stack = process.env.FLOWRT_DEBUG && error instanceof Error && error.stack ? `\n${error.stack}` : "";
    process.stderr.write(`flowrt: ${named}${stack}\n`);
    process.exitCode = 1;
  },
);
