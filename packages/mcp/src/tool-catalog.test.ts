import { defineFlow, handler, isFlowError } from "@flowrt/core";
import { createFlowHost, silentLogger } from "@flowrt/engine";
import { createMemoryStores } from "@flowrt/store-memory";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { listToolsFor } from "./list-tools.js";
import { MCP_SOURCE } from "./mcp-caller.js";
import { mcpInbound } from "./mcp-inbound.js";
import { ToolCatalog } from "./tool-catalog.js";

const noop = handler({ name: "noop", execute: async () => null });
const hostOf = (...flows: ReturnType<typeof defineFlow>[]) =>
  createFlowHost({ flows, stores: createMemoryStores(), logger: silentLogger, inbound: [mcpInbound()] });

describe("the tool catalogue", () => {
  it("refuses two actions that would share a tool name, naming both, when the host starts", async () => {
    const host = hostOf(
      defineFlow({ kind: "a.b", authentication: { defaultUserId: "dev" }, actions: { c: noop } }),
      defineFlow({ kind: "a", authentication: { defaultUserId: "dev" }, actions: { "b.c": noop } }),
    );
    const error = await host.start().then(
      () => undefined,
      (caught: unknown) => caught,
    );
    expect(isFlowError(error) && error.code).toBe("definition-error");
    expect(String((error as Error).message)).toMatch(
      /"a\.b\.c".*flow "a\.b" action "c".*flow "a" action "b\.c"/,
    );
  });

  it("wraps any block input under `input`: a block without a schema takes any JSON, a non-object input keeps its type", () => {
    const count = handler({ name: "count", inputSchema: z.number().int(), execute: async (n) => n + 1 });
    const host = hostOf(
      defineFlow({ kind: "lab", authentication: { defaultUserId: "dev" }, actions: { noop, count } }),
    );
    const catalog = new ToolCatalog(host);
    expect(catalog.get("lab.noop")?.tool.inputSchema).toMatchObject({
      type: "object",
      properties: { input: {}, sessionId: { type: "string" } },
    });
    expect(catalog.get("lab.noop")?.tool.inputSchema.required).toBeUndefined();
    expect(catalog.get("lab.count")?.tool.inputSchema).toMatchObject({
      properties: { input: { type: "integer" } },
      required: ["input"],
    });
  });

  it("lists a flow without any resolver only when a call without credentials would pass (defaultUserId)", async () => {
    const host = hostOf(
      defineFlow({ kind: "open", authentication: { defaultUserId: "dev" }, actions: { noop } }),
      defineFlow({ kind: "closed", actions: { noop } }),
    );
    const tools = await listToolsFor(host, new ToolCatalog(host), { source: MCP_SOURCE });
    expect(tools.map((tool) => tool.name)).toEqual(["open.noop"]);
  });
});
