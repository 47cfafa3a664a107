// An MCP client for the mcp README's example (written beside this file as example.mts and started first): the
// endpoint is the first argument; it lists the tools and calls one with the README's development token.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

const transport = new StreamableHTTPClientTransport(new URL(process.argv[2]), {
  requestInit: { headers: { authorization: "Bearer dev-token-ada" } },
});
const client = new Client({ name: "rehearsal", version: "0.0.0" });
await client.connect(transport);
const { tools } = await client.listTools();
console.log(`tools: ${tools.map((tool) => tool.name).join(", ")}`);
const result = await client.callTool({
  name: "notebook.addNote",
  arguments: { input: { key: "a", title: "Milk" } },
});
console.log(`call: ${JSON.stringify(result.structuredContent)}`);
await client.close();
