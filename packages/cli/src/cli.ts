#!/usr/bin/env node
import { parseArgs } from "node:util";
import { isFlowError } from "@flowrt/core";
import { eraseUserData } from "./cli/erase-user.js";
import { loadFlowsModule } from "./cli/load-flows-module.js";
import { serveFlows } from "./cli/serve.js";
import { parseStoreSpec, UsageError } from "./cli/store-spec.js";

const USAGE = `Usage: flowrt serve <module> [options]
       flowrt erase-user --user <id> [--org <id>] [--store <spec>] <module>

serve: serves the flows a module exports (a default array, a named "flows" array, or every exported flow
definition; optional named exports "resolvePrincipal", "webhookProviders" and "inbound", an array of
custom inbound adapters whose routes are served beside the API). TypeScript modules load through tsx.

erase-user: removes every session of a user in every flow (running requests aborted, sessions beneath
them, everything stored under them), their user-scope data and their request records from the store the
module is served on; org-scope data is kept. With --org, only their sessions and requests in that org.
Prints what was removed as JSON.

Options:
  --port <n>          port to listen on (0 picks a free one)      default: $PORT or 3000
  --host <address>    address to bind                             default: $HOST or 127.0.0.1
  --store <spec>      memory | fs:<dir> | postgres:<url>          default: memory
  --base-path <path>  where the API is mounted                    default: /api/flows
  --user <id>         erase-user: the user whose data goes
  --org <id>          erase-user: only what the user has in this org
  -h, --help          show this help
`;

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
      help: { type: "boolean", short: "h" },
    },
  });
  if (values.help || positionals.length === 0) {
    process.stdout.write(USAGE);
    return values.help ? 0 : 1;
  }
  const [command, modulePath, ...extra] = positionals;
  if (command !== "serve" && command !== "erase-user") {
    throw new UsageError(`Unknown command "${command}". Try: flowrt serve <module>.`);
  }
  if (!modulePath) throw new UsageError(`flowrt ${command} needs the path of a flows module.`);
  if (extra.length > 0) throw new UsageError(`Unexpected arguments: ${extra.join(" ")}.`);
  if (command === "erase-user") return eraseUser(modulePath, values);
  for (const option of ["user", "org"] as const) {
    if (values[option] !== undefined) throw new UsageError(`--${option} is an option of flowrt erase-user.`);
  }

  // An empty PORT or HOST counts as unset.
  const port = parsePort(values.port ?? (env.PORT || "3000"));
  const host = values.host ?? (env.HOST || "127.0.0.1");
  const store = parseStoreSpec(values.store ?? "memory");
  const module = await loadFlowsModule(modulePath);
  const server = await serveFlows(module, {
    port,
    host,
    store,
    ...(values["base-path"] !== undefined ? { basePath: values["base-path"] } : {}),
  });
  process.stdout.write(`flowrt listening on ${server.url}\n`);

  let stopping = false;
  const stop = (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    process.stdout.write(`flowrt: ${signal}, shutting down\n`);
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
  process.once("SIGINT", stop);
  process.once("SIGTERM", stop);
  return undefined;
}

/** `flowrt erase-user`: checks the options before any module or store is opened, prints the counts as JSON. */
async function eraseUser(
  modulePath: string,
  values: { user?: string; org?: string; store?: string; port?: string; host?: string; "base-path"?: string },
): Promise<number> {
  for (const option of ["port", "host", "base-path"] as const) {
    if (values[option] !== undefined) throw new UsageError(`--${option} is an option of flowrt serve.`);
  }
  if (values.user === undefined) throw new UsageError("flowrt erase-user needs --user <id>.");
  const store = parseStoreSpec(values.store ?? "memory");
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
