import type { Caller, FlowHost, RegisteredFlow } from "@flowrt/engine";
import { statusForError } from "@flowrt/engine";
import type { Tool } from "@modelcontextprotocol/sdk/types.js";
import type { ToolCatalog } from "./tool-catalog.js";

/**
 * Whether the caller may use a flow at all: its principal resolves (the flow's resolver, else the host's, with
 * `source: "mcp"`; `defaultUserId`; `requireUser`), exactly as an action call would resolve it. A refusal (401,
 * 403) hides the flow; anything else is the server's failure and fails the listing.
 */
async function usableBy(host: FlowHost, flow: RegisteredFlow, caller: Caller): Promise<boolean> {
  try {
    await host.principalFor(flow, caller);
    return true;
  } catch (error) {
    const status = statusForError(error);
    if (status === 401 || status === 403) return false;
    throw error;
  }
}

/** `tools/list` for one caller: the tools of every flow they can use, flows in the host's order. */
export async function listToolsFor(host: FlowHost, catalog: ToolCatalog, caller: Caller): Promise<Tool[]> {
  const flows = host.registry.flows.filter((flow) => catalog.ofFlow(flow.id).length > 0);
  const usable = await Promise.all(flows.map((flow) => usableBy(host, flow, caller)));
  return flows
    .filter((_, i) => usable[i])
    .flatMap((flow) => catalog.ofFlow(flow.id).map((entry) => entry.tool));
}
