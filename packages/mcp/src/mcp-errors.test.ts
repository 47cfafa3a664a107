import type { FlowStores } from "@flowrt/core";
import { createMemoryStores } from "@flowrt/store-memory";
import { McpError } from "@modelcontextprotocol/sdk/types.js";
import { afterEach, describe, expect, it } from "vitest";
import { mcpInbound } from "./mcp-inbound.js";
import { notebookHost, TOKENS } from "./testing/notebook-flows.js";
import { recordingLogger } from "./testing/recording-logger.js";
import { serveOverHttp } from "./testing/serve.js";

let served: Awaited<ReturnType<typeof serveOverHttp>> | undefined;

afterEach(async () => {
  await served?.close();
  served = undefined;
});

/** Stores whose session creation fails with a message that names the machine. */
function failingSessionStores(): FlowStores {
  const stores = createMemoryStores();
  const sessions = new Proxy(stores.sessions, {
    get(target, property) {
      if (property === "create") {
        return async () => {
          throw new Error("ENOSPC: /var/lib/flowrt/secret-volume is full");
        };
      }
      const value = Reflect.get(target, property, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
  return { ...stores, sessions };
}

describe("server-side failures reach MCP clients as the HTTP API shows them: code, catalogue text, errorId", () => {
  it("a run that fails is an isError result with internal-error and its errorId, never the error's message", async () => {
    served = await serveOverHttp(notebookHost(createMemoryStores(), { inbound: [mcpInbound()] }));
    const root = await served.connect({ authorization: `Bearer ${TOKENS.root}` });
    const result = await root.callTool({ name: "admin.explode", arguments: {} });
    expect(result.isError).toBe(true);
    const text = (result.content as Array<{ text: string }>)[0]!.text;
    expect(text).toMatch(/^internal-error: An unexpected error occurred\. \(errorId \S+\)$/);
    expect(JSON.stringify(result)).not.toContain("10.0.0.7");
  });

  it("a failure before the run is JSON-RPC -32603 with an errorId; the message goes to the log only", async () => {
    const { logger, lines } = recordingLogger();
    served = await serveOverHttp(notebookHost(failingSessionStores(), { inbound: [mcpInbound()], logger }));
    const ada = await served.connect({ authorization: `Bearer ${TOKENS.ada}` });
    const error = await ada
      .callTool({ name: "notebook.addNote", arguments: { input: { key: "k", title: "t" } } })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(McpError);
    const refused = error as McpError;
    expect(refused.code).toBe(-32603);
    expect(refused.message).toContain("An unexpected error occurred.");
    const data = refused.data as { errorId?: string; code?: string };
    expect(data.code).toBe("internal-error");
    expect(data.errorId).toEqual(expect.any(String));
    expect(JSON.stringify({ message: refused.message, data })).not.toContain("secret-volume");
    const logged = lines.find((line) => line.level === "error" && line.fields.errorId === data.errorId);
    expect(String((logged?.fields.err as Error | undefined)?.message)).toContain("secret-volume");
  });
});
