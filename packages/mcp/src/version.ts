import { createRequire } from "node:module";

/** This package's version, for the `initialize` answer's `serverInfo`. */
export const MCP_PACKAGE_VERSION: string = (
  createRequire(import.meta.url)("../package.json") as { version: string }
).version;
