import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { createFsStores } from "@flowrt/store-fs";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { McpError } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TOKENS } from "./testing/notebook-flows.js";

const SERVER = fileURLToPath(new URL("./testing/stdio-server.ts", import.meta.url));
const PACKAGE_DIR = fileURLToPath(new URL("..", import.meta.url));

let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "flowrt-mcp-stdio-"));
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** A client that starts the server as a child process and talks to it over its stdin and stdout. */
async function startServer(token?: string, user?: string): Promise<Client> {
  const env: Record<string, string> = { ...(process.env as Record<string, string>), FLOWRT_MCP_DIR: dir };
  delete env.FLOWRT_TOKEN;
  delete env.FLOWRT_USER;
  if (token) env.FLOWRT_TOKEN = token;
  if (user) env.FLOWRT_USER = user;
  const client = new Client({ name: "flowrt-test", version: "1.0.0" });
  await client.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: ["--conditions=@flowrt/source", "--import", "tsx", SERVER],
      cwd: PACKAGE_DIR,
      env,
      stderr: "pipe",
    }),
  );
  return client;
}

describe("MCP over stdio (a child process)", () => {
  it("lists the tools, no webhook handler among them, and a call creates a note with structured output", async () => {
    const client = await startServer(TOKENS.ada);
    try {
      const { tools } = await client.listTools();
      expect(tools.map((tool) => tool.name)).toEqual(["notebook.addNote", "notebook.tell", "notebook.wait"]);
      const result = await client.callTool({
        name: "notebook.addNote",
        arguments: { input: { key: "local", title: "From stdio" } },
      });
      const structured = result.structuredContent as {
        requestId: string;
        sessionId: string;
        output: unknown;
      };
      expect(structured.output).toEqual({ ok: true, key: "local" });

      const stores = createFsStores({ dir });
      expect(await stores.sessions.get(structured.sessionId)).toMatchObject({ userId: "ada" });
      expect(await stores.requests.get(structured.requestId)).toMatchObject({ status: "completed" });
    } finally {
      await client.close();
    }
  }, 60_000);

  it("without credentials the tools are hidden and a call is refused (MCP error 401), writing nothing", async () => {
    const client = await startServer();
    const stores = createFsStores({ dir });
    const before = (await stores.sessions.list({})).items.length;
    try {
      expect((await client.listTools()).tools).toEqual([]);
      const error = await client
        .callTool({ name: "notebook.addNote", arguments: { input: { key: "k", title: "t" } } })
        .catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(McpError);
      expect((error as McpError).code).toBe(401);
    } finally {
      await client.close();
    }
    expect((await stores.sessions.list({})).items).toHaveLength(before);
  }, 60_000);

  it("a principal asserted by the application stands for the local client, over the flows' resolvers", async () => {
    const client = await startServer(undefined, "grace");
    try {
      const result = await client.callTool({
        name: "notebook.addNote",
        arguments: { input: { key: "asserted", title: "Trusted" } },
      });
      const { sessionId } = result.structuredContent as { sessionId: string };
      expect(await createFsStores({ dir }).sessions.get(sessionId)).toMatchObject({ userId: "grace" });
    } finally {
      await client.close();
    }
  }, 60_000);
});
