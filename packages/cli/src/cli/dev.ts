import { existsSync } from "node:fs";
import { dirname, resolve } from "node:path";
import type { InboundAdapter } from "@flowrt/engine";

/** What `flowrt dev` was given: the flows module and the options it passes on to `flowrt serve`. */
export interface DevOptions {
  modulePath: string;
  port?: string;
  host?: string;
  store?: string;
  basePath?: string;
  envFile?: string;
}

/** Where `flowrt dev` keeps its data unless `--store` or `FLOWRT_STORE` says otherwise. */
export const DEV_STORE = "fs:.flowrt";

/** The environment variable that tells `flowrt serve` it runs under `flowrt dev`. */
export const DEV_MARK = "FLOWRT_DEV";

/**
 * The command line of the `flowrt serve` process `flowrt dev` runs under Node's watch mode: the folder of the flows
 * module watched (any change there restarts it), the filesystem store by default, `.env` read when there is one and
 * no `--env-file` was given, and no grace period (a restart does not wait for running requests; durable ones are
 * taken up again by the next start).
 */
export function devServeArguments(
  options: DevOptions,
  context: { cliPath: string; cwd: string; env: NodeJS.ProcessEnv; execArgv: readonly string[] },
): string[] {
  const modulePath = resolve(context.cwd, options.modulePath);
  const envFile = options.envFile ?? (existsSync(resolve(context.cwd, ".env")) ? ".env" : undefined);
  const store = options.store ?? (context.env.FLOWRT_STORE || DEV_STORE);
  return [
    ...context.execArgv.filter((arg) => !arg.startsWith("--watch")),
    `--watch-path=${dirname(modulePath)}`,
    "--watch-preserve-output",
    context.cliPath,
    "serve",
    modulePath,
    "--store",
    store,
    "--grace-ms",
    "0",
    ...(options.port !== undefined ? ["--port", options.port] : []),
    ...(options.host !== undefined ? ["--host", options.host] : []),
    ...(options.basePath !== undefined ? ["--base-path", options.basePath] : []),
    ...(envFile !== undefined ? ["--env-file", envFile] : []),
  ];
}

/**
 * `@flowrt/inspector`'s adapter when it is installed (an optional peer dependency of the CLI), else `undefined`: the
 * engine's JSON debug route is then the only inspector.
 */
export async function loadInspector(): Promise<InboundAdapter | undefined> {
  try {
    const { inspectorInbound } = (await import("@flowrt/inspector" as string)) as {
      inspectorInbound: () => InboundAdapter;
    };
    return inspectorInbound();
  } catch (error) {
    if ((error as { code?: unknown }).code === "ERR_MODULE_NOT_FOUND") return undefined;
    throw error;
  }
}

/** A folder of the application's page, served at `/` under `flowrt dev`: `public/` beside the module, else in cwd. */
export function findPublicDir(modulePath: string, cwd: string): string | undefined {
  for (const dir of [resolve(dirname(resolve(cwd, modulePath)), "public"), resolve(cwd, "public")]) {
    if (existsSync(dir)) return dir;
  }
  return undefined;
}

/** The lines `flowrt dev` prints once the server listens. */
export function devBanner(
  apiUrl: string,
  origin: string,
  parts: { inspector: boolean; page: boolean },
): string {
  return [
    `flowrt dev: API        ${apiUrl}`,
    `flowrt dev: OpenAPI    ${apiUrl}/openapi.json`,
    parts.page ? `flowrt dev: page       ${origin}/` : "flowrt dev: page       (no public/ folder to serve)",
    parts.inspector
      ? `flowrt dev: inspector  ${apiUrl}/_inspector`
      : `flowrt dev: inspector  ${apiUrl}/sessions/<id>/debug (npm install -D @flowrt/inspector for its page)`,
    "",
  ].join("\n");
}
