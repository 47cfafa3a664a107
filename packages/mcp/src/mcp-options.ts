/** Options shared by every MCP transport of a host. */
export interface McpServerOptions {
  /**
   * Between a flow id and an action name in a tool's name (`notebook.addNote`). MCP allows `.`; some clients
   * (model APIs that take `^[a-zA-Z0-9_-]+$`) do not: give `"__"` or `"-"` for them.
   * @default "."
   */
  toolNameSeparator?: string;
  /** The server's name in the `initialize` answer. @default "flowrt" */
  name?: string;
  /** The server's version in the `initialize` answer. @default the @flowrt/mcp version */
  version?: string;
  /** Shown to clients at `initialize` (what the server is for). */
  instructions?: string;
}
