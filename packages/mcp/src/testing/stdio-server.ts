/**
 * A local MCP server over stdio, as a client starts it: the notebook host over a filesystem store in
 * `FLOWRT_MCP_DIR` (so the test can read what it wrote), its caller's token from `FLOWRT_TOKEN`, or an asserted user from `FLOWRT_USER`.
 */
import { createFsStores } from "@flowrt/store-fs";
import { serveMcpStdio } from "../serve-mcp-stdio.js";
import { notebookHost } from "./notebook-flows.js";

const dir = process.env.FLOWRT_MCP_DIR;
if (!dir) throw new Error("FLOWRT_MCP_DIR is required");
const host = notebookHost(createFsStores({ dir }));
await host.start();
const token = process.env.FLOWRT_TOKEN;
const user = process.env.FLOWRT_USER;
const server = await serveMcpStdio(
  host,
  token ? { headers: { Authorization: `Bearer ${token}` } } : user ? { principal: { userId: user } } : {},
);
server.onclose = () => {
  void host.close({ graceMs: 1_000 }).then(() => process.exit(0));
};
