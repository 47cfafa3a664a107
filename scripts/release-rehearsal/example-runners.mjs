import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { mustRun } from "./run-command.mjs";
import { startServer } from "./start-server.mjs";

/**
 * @typedef {object} ExampleContext
 * @property {string} dir the fresh install folder
 * @property {string} node the Node binary the example runs on
 * @property {NodeJS.ProcessEnv} env that Node first on PATH (so `npx` and `#!/usr/bin/env node` use it)
 * @property {(name: string) => string} installed the folder of an installed package
 * @property {string | undefined} databaseUrl a database of this run, for the Postgres examples
 * @property {Map<string, Promise<string>>} folders the install folders of this Node, by plan id, once installed
 */

/**
 * Writes `files` into the install folder and runs `node <entry> [...args]` there; answers its stdout.
 *
 * @param {ExampleContext} ctx
 * @param {Record<string, string>} files
 * @param {string | string[]} entry the file to run, or it and its arguments
 * @param {{ env?: NodeJS.ProcessEnv, timeoutMs?: number }} [options]
 */
export async function runScript(ctx, files, entry, { env = {}, timeoutMs = 120_000 } = {}) {
  for (const [name, text] of Object.entries(files)) writeFileSync(join(ctx.dir, name), text);
  const args = Array.isArray(entry) ? entry : [entry];
  const { stdout } = await mustRun(ctx.node, args, { cwd: ctx.dir, env: { ...ctx.env, ...env }, timeoutMs });
  return stdout;
}

/**
 * Starts a server in `cwd`, waits for the line matching `banner` (its first group is the URL), hands the URL
 * to `use`, then stops the server whatever happened.
 */
export async function withServer(command, args, { cwd, env, banner }, use) {
  const server = await startServer(command, args, { cwd, env, banner });
  try {
    return await use(server.url);
  } catch (error) {
    throw new Error(`${error.message}\nserver output:\n${server.output()}`);
  } finally {
    await server.stop();
  }
}

/** A JSON request; a status other than `status` is thrown with the body. Answers `METHOD path -> status body`. */
export async function requestJson(method, url, body, status) {
  const res = await fetch(url, {
    method,
    headers: body === undefined ? {} : { "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  if (res.status !== status)
    throw new Error(`${method} ${url} answered ${res.status} (expected ${status}): ${text}`);
  return {
    line: `${method} ${new URL(url).pathname} -> ${res.status} ${text.slice(0, 160)}`,
    body: JSON.parse(text),
  };
}

/** Throws unless `output` matches every pattern; answers `output`. */
export function expectOutput(output, ...patterns) {
  for (const pattern of patterns) {
    if (!pattern.test(output)) throw new Error(`the output does not match ${pattern}:\n${output}`);
  }
  return output;
}

/** The notebook API's documented first calls: create a session as "ada", then run `addNote` in it. */
export async function notebookCalls(url) {
  const created = await requestJson("POST", `${url}/notebook/sessions`, { userId: "ada" }, 201);
  const action = await requestJson(
    "POST",
    `${url}/notebook/actions/addNote`,
    { sessionId: created.body.session.id, userId: "ada", input: { key: "a", title: "A" } },
    202,
  );
  return `${created.line}\n${action.line}`;
}
