import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { stripVTControlCharacters } from "node:util";
import { expectOutput, notebookCalls, runScript, withServer } from "./example-runners.mjs";
import { readmeExample, replaceOnce } from "./readme-example.mjs";
import { mustRun } from "./run-command.mjs";

/** @typedef {import("./example-runners.mjs").ExampleContext} ExampleContext */

/**
 * @typedef {object} PlannedInstall
 * @property {string} id the folder's name (before `-node<major>`)
 * @property {string} [alone] a package installed alone first (measured, then imported)
 * @property {string[]} [extras] what is then installed beside it: what its README's install lines name for
 *   its example (checked against the published README, unless `extrasFromExample`)
 * @property {boolean} [extrasFromExample] the extras are named by the example itself, not an install line
 * @property {string[]} [combination] installed at once in a fresh folder, when there is no `alone`
 * @property {string} label the size table's row for the full install
 * @property {number} [maxBytes] the full install fails the rehearsal above this size
 * @property {string} [note] why the example run is not the README's first block as written
 * @property {(ctx: ExampleContext) => Promise<string>} example runs the README's example; answers its output
 */

/** A file of `drivers/`: what calls an example that only exports (copied beside it). */
function driver(name) {
  return readFileSync(new URL(`./drivers/${name}`, import.meta.url), "utf8");
}

const EXPRESS_COMBINATION = ["@flowrt/express", "@flowrt/engine", "@flowrt/core", "express", "zod"];

/** The express README's example served on another store, the store's README constructor swapped in. */
function expressExampleOn(ctx, store) {
  let code = readmeExample(ctx.installed("@flowrt/express"));
  code = replaceOnce(code, 'import { createMemoryStores } from "@flowrt/store-memory";', store.import);
  code = replaceOnce(code, "stores: createMemoryStores()", `stores: ${store.create}`);
  return serveExpressExample(ctx, code);
}

async function serveExpressExample(ctx, code, env = {}) {
  return runServerExample(
    ctx,
    { "example.mts": code },
    [ctx.node, "example.mts"],
    env,
    /notebook API on (\S+)\n/,
  );
}

async function runServerExample(ctx, files, [command, ...args], env, banner) {
  for (const [name, text] of Object.entries(files)) writeFileSync(join(ctx.dir, name), text);
  return withServer(
    command,
    args,
    { cwd: ctx.dir, env: { ...ctx.env, PORT: "0", ...env }, banner },
    async (url) => {
      return `serving ${url}\n${await notebookCalls(url)}`;
    },
  );
}

/**
 * Every install the rehearsal makes, in the size table's order. Each public package is installed alone; the
 * README's install line then adds what its example imports, and the example runs as written unless `note`
 * says why not. (The client's example talks to the CLI's server: it waits for the CLI's folder.)
 *
 * @type {PlannedInstall[]}
 */
export const installPlan = [
  {
    id: "auth",
    alone: "@flowrt/auth",
    extras: ["@flowrt/core", "jose"],
    label: "auth + core + jose (README)",
    example: async (ctx) =>
      expectOutput(
        await runScript(ctx, { "example.mts": readmeExample(ctx.installed("@flowrt/auth")) }, "example.mts"),
        /userId: 'user_42'/,
        /orgId: 'acme'/,
      ),
  },
  {
    id: "cli",
    alone: "@flowrt/cli",
    // The README's first and last install lines: the default store (memory) and what a flows module imports.
    extras: ["@flowrt/store-memory", "@flowrt/core", "zod"],
    label: "cli + store-memory + core + zod (README)",
    note: "`npx flowrt serve ./flows.ts` as the README writes it, with `--port 0` so parallel runs do not collide",
    example: (ctx) =>
      runServerExample(
        ctx,
        { "flows.ts": readmeExample(ctx.installed("@flowrt/cli")) },
        ["npx", "flowrt", "serve", "./flows.ts", "--port", "0"],
        {},
        /flowrt listening on (\S+)\n/,
      ),
  },
  {
    id: "client",
    alone: "@flowrt/client",
    label: "client",
    note:
      "the example exports `addNote(options)`; it is called as the README's page calls it, against the CLI's " +
      "README flows served by `flowrt serve`, with a resolver that names the caller by the bearer token",
    example: async (ctx) => {
      const cliDir = await ctx.folders.get("cli")?.catch(() => undefined);
      if (cliDir === undefined) throw new Error("the client's example needs the CLI's install, which failed");
      const cli = { ...ctx, dir: cliDir };
      writeFileSync(join(cliDir, "client-flows.ts"), driver("client-flows.ts"));
      return withServer(
        "npx",
        ["flowrt", "serve", "./client-flows.ts", "--port", "0"],
        { cwd: cli.dir, env: cli.env, banner: /flowrt listening on (\S+)\n/ },
        async (url) => {
          const output = await runScript(
            ctx,
            {
              "notes.mts": readmeExample(ctx.installed("@flowrt/client")),
              "page.mjs": driver("client-page.mjs"),
            },
            ["page.mjs", new URL(url).origin],
          );
          return expectOutput(
            output,
            /^notes notes\/todo-1 created$/m,
            /^notes\/todo-1: Buy milk$/m,
            /^not created: .*already exists/m,
          );
        },
      );
    },
  },
  {
    id: "core",
    alone: "@flowrt/core",
    extras: ["zod", "@ai-sdk/openai"],
    label: "core + zod + @ai-sdk/openai (README)",
    note:
      "the example defines flows and exports them; they are imported and listed (its generator would need an " +
      "OpenAI key only when it runs, and nothing runs it here)",
    example: async (ctx) =>
      expectOutput(
        await runScript(
          ctx,
          {
            "flow.mts": readmeExample(ctx.installed("@flowrt/core")),
            "list-flows.mjs": driver("list-flows.mjs"),
          },
          "list-flows.mjs",
        ),
        /^notebook: flow "notebook" \(kind notebook\), actions addNote, summarize, triage$/m,
        /^notebookEu: flow "notebook-eu"/m,
      ),
  },
  {
    id: "engine",
    alone: "@flowrt/engine",
    // Not `ai`, which the README installs only for generator blocks: the example runs none.
    extras: ["@flowrt/core", "@flowrt/store-memory", "zod"],
    label: "engine + core + store-memory + zod (README)",
    note: "the example exports `main()`; it is imported and called, and its result printed",
    example: async (ctx) =>
      expectOutput(
        await runScript(
          ctx,
          {
            "example.mts": readmeExample(ctx.installed("@flowrt/engine")),
            "main.mjs": driver("call-main.mjs"),
          },
          "main.mjs",
        ),
        /"types":\["request\.started".*"request\.completed"\]/,
        /"status":200/,
        /"clientData":\{"session":\{"added":1\}/,
      ),
  },
  {
    id: "express",
    alone: "@flowrt/express",
    extras: ["@flowrt/engine", "@flowrt/core", "@flowrt/store-memory", "express", "zod"],
    label: "@flowrt/express + engine + core + store-memory + express + zod (README)",
    maxBytes: 15e6,
    example: (ctx) => serveExpressExample(ctx, readmeExample(ctx.installed("@flowrt/express"))),
  },
  {
    id: "express-fs",
    combination: [...EXPRESS_COMBINATION, "@flowrt/store-fs"],
    label: "@flowrt/express + engine + core + store-fs + express + zod",
    note: "the express README's example with store-fs's README constructor, `createFsStores({ dir: \".data/flowrt\" })`",
    example: (ctx) =>
      expressExampleOn(ctx, {
        import: 'import { createFsStores } from "@flowrt/store-fs";',
        create: 'createFsStores({ dir: ".data/flowrt" })',
      }),
  },
  {
    id: "express-postgres",
    combination: [...EXPRESS_COMBINATION, "@flowrt/store-postgres"],
    label: "@flowrt/express + engine + core + store-postgres + express + zod",
    note:
      "the express README's example with store-postgres's README constructor, " +
      "`createPostgresStores({ connectionString: process.env.DATABASE_URL! })` (host.start() runs setup())",
    example: (ctx) =>
      expressExampleOn(
        { ...ctx, env: { ...ctx.env, DATABASE_URL: needDatabase(ctx) } },
        {
          import: 'import { createPostgresStores } from "@flowrt/store-postgres";',
          create: "createPostgresStores({ connectionString: process.env.DATABASE_URL! })",
        },
      ),
  },
  {
    id: "inspector",
    alone: "@flowrt/inspector",
    extras: ["@flowrt/engine", "@flowrt/core", "@flowrt/express", "@flowrt/store-memory", "express", "zod"],
    extrasFromExample: true,
    label: "inspector + engine + core + express adapter + store-memory + express + zod (README)",
    note: 'the README\'s "Try it (runnable)" example: its "Mount it" block is a fragment of an app',
    example: async (ctx) => {
      const code = readmeExample(ctx.installed("@flowrt/inspector"), "## Try it (runnable)");
      writeFileSync(join(ctx.dir, "example.mts"), code);
      return expectOutput(
        await withServer(
          ctx.node,
          ["example.mts"],
          { cwd: ctx.dir, env: { ...ctx.env, PORT: "0" }, banner: /inspector on (\S+)\n/ },
          async (url) => {
            const page = await fetch(url);
            const flows = await (await fetch(`${url}/api/flows`)).text();
            return `GET ${new URL(url).pathname} -> ${page.status} ${page.headers.get("content-type")}\nGET api/flows -> ${flows.slice(0, 160)}`;
          },
        ),
        /-> 200 text\/html/,
        /"hello"/,
      );
    },
  },
  {
    id: "mcp",
    alone: "@flowrt/mcp",
    // The install line names the host packages; the example also serves them over Express with a bearer check.
    extras: [
      "@flowrt/engine",
      "@flowrt/core",
      "zod",
      "@flowrt/auth",
      "@flowrt/express",
      "@flowrt/store-memory",
      "express",
    ],
    extrasFromExample: true,
    label: "mcp + engine + core + auth + express adapter + store-memory + express + zod (README)",
    note: "the example serves the endpoint; an MCP SDK client (drivers/mcp-client.mjs) lists the tools and calls one",
    example: async (ctx) => {
      writeFileSync(join(ctx.dir, "example.mts"), readmeExample(ctx.installed("@flowrt/mcp")));
      writeFileSync(join(ctx.dir, "mcp-client.mjs"), driver("mcp-client.mjs"));
      return expectOutput(
        await withServer(
          ctx.node,
          ["example.mts"],
          {
            cwd: ctx.dir,
            env: { ...ctx.env, PORT: "0" },
            banner: /MCP endpoint on (\S+)\n/,
          },
          async (url) =>
            (await mustRun(ctx.node, ["mcp-client.mjs", url], { cwd: ctx.dir, env: ctx.env })).stdout,
        ),
        /tools: notebook\.addNote/,
        /call: \{"requestId":"[^"]+","sessionId":"[^"]+","output":\{"ok":true\}\}/,
      );
    },
  },
  {
    id: "store-conformance",
    alone: "@flowrt/store-conformance",
    // The example's own import names the store it runs against; vitest, its peer, comes with it.
    extras: ["@flowrt/store-memory"],
    extrasFromExample: true,
    label: "store-conformance (+ vitest, its peer) + store-memory",
    note: "the README's `my-store.conformance.test.ts`, run with `npx vitest run` as the README says",
    example: async (ctx) => {
      writeFileSync(
        join(ctx.dir, "my-store.conformance.test.ts"),
        readmeExample(ctx.installed("@flowrt/store-conformance")),
      );
      const { stdout } = await mustRun("npx", ["vitest", "run"], {
        cwd: ctx.dir,
        env: ctx.env,
        timeoutMs: 180_000,
      });
      const summary = stdout.split("\n").filter((line) => /Test Files|Tests\s/.test(line));
      return expectOutput(stripVTControlCharacters(summary.join("\n")), /Tests\s+\d+ passed/);
    },
  },
  {
    id: "store-fs",
    alone: "@flowrt/store-fs",
    label: "store-fs",
    example: async (ctx) =>
      expectOutput(
        await runScript(
          ctx,
          { "example.mts": readmeExample(ctx.installed("@flowrt/store-fs")) },
          "example.mts",
        ),
        /^1 \[ 'notes\/a' \]$/m,
      ),
  },
  {
    id: "store-memory",
    alone: "@flowrt/store-memory",
    label: "store-memory",
    example: async (ctx) =>
      expectOutput(
        await runScript(
          ctx,
          { "example.mts": readmeExample(ctx.installed("@flowrt/store-memory")) },
          "example.mts",
        ),
        /key: 'notes\/a'/,
        /total: 1/,
      ),
  },
  {
    id: "store-postgres",
    alone: "@flowrt/store-postgres",
    label: "store-postgres",
    example: async (ctx) =>
      expectOutput(
        await runScript(
          ctx,
          { "example.mts": readmeExample(ctx.installed("@flowrt/store-postgres")) },
          "example.mts",
          { env: { DATABASE_URL: needDatabase(ctx) } },
        ),
        /^1 \[ 'notes\/a' \]$/m,
      ),
  },
  {
    id: "webhooks",
    alone: "@flowrt/webhooks",
    extras: ["@flowrt/engine", "@flowrt/core"],
    label: "webhooks + engine + core (README)",
    note:
      'the README\'s "Standalone (runnable)" example: the first block is a fragment of an app (its `flows`, ' +
      "`stores` and provider secrets are the app's)",
    example: async (ctx) =>
      expectOutput(
        await runScript(
          ctx,
          { "example.mts": readmeExample(ctx.installed("@flowrt/webhooks"), "## Standalone (runnable)") },
          "example.mts",
        ),
        /^true\nfalse$/m,
      ),
  },
];

function needDatabase(ctx) {
  if (ctx.databaseUrl === undefined) {
    throw new Error("DATABASE_URL is not set: the Postgres examples need a server (.ci/run sets it)");
  }
  return ctx.databaseUrl;
}
