import { execFile } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { promisify } from "node:util";
import type { FlowStores } from "@flowrt/core";
import { createMemoryStores } from "@flowrt/store-memory";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mcpInbound } from "./mcp-inbound.js";
import { notebookHost, TOKENS } from "./testing/notebook-flows.js";
import { serveOverHttp } from "./testing/serve.js";

const run = promisify(execFile);
const INSPECTOR = join(
  dirname(createRequire(import.meta.url).resolve("@modelcontextprotocol/inspector/package.json")),
  "clients/launcher/build/index.js",
);

let stores: FlowStores;
let served: Awaited<ReturnType<typeof serveOverHttp>>;
let home: string;

beforeAll(async () => {
  stores = createMemoryStores();
  served = await serveOverHttp(notebookHost(stores, { inbound: [mcpInbound()] }));
  // The Inspector keeps a catalog and secrets under the home directory: a throwaway one.
  home = await mkdtemp(join(tmpdir(), "flowrt-mcp-inspector-"));
});

afterAll(async () => {
  await served.close();
  await rm(home, { recursive: true, force: true });
});

/** `mcp-inspector --cli <url> …` against the served endpoint; its JSON answer. */
async function inspector(...args: string[]): Promise<Record<string, unknown>> {
  const { stdout } = await run(
    process.execPath,
    [INSPECTOR, "--cli", served.url, "--transport", "http", ...args],
    {
      env: { ...process.env, HOME: home, MCP_CATALOG_PATH: join(home, "mcp.json") },
      timeout: 60_000,
    },
  );
  return JSON.parse(stdout) as Record<string, unknown>;
}

describe("the MCP Inspector's CLI", () => {
  it("lists the tools and calls one, with a bearer token", async () => {
    const auth = ["--header", `Authorization: Bearer ${TOKENS.ada}`];
    const listed = await inspector(...auth, "--method", "tools/list");
    expect((listed.tools as Array<{ name: string }>).map((tool) => tool.name)).toEqual([
      "notebook.addNote",
      "notebook.tell",
      "notebook.wait",
    ]);

    const called = await inspector(
      ...auth,
      "--method",
      "tools/call",
      "--tool-name",
      "notebook.addNote",
      "--tool-arg",
      'input={"key":"inspected","title":"From the Inspector"}',
    );
    const structured = called.structuredContent as { sessionId: string; output: unknown };
    expect(structured.output).toEqual({ ok: true, key: "inspected" });
    expect(await stores.sessions.get(structured.sessionId)).toMatchObject({ userId: "ada" });
  }, 120_000);
});
