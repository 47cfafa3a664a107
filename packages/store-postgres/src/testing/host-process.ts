/**
 * One flowrt host in its own process, for the two-host tests: an Express app serving the board flow
 * over Postgres stores on the schema the test chose, on an ephemeral port. Prints `listening <url>`
 * once it serves, and shuts down cleanly on SIGTERM.
 *
 * Environment: DATABASE_URL, FLOWRT_TEST_SCHEMA, FLOWRT_TEST_HOST (a name), FLOWRT_TEST_LEASE_MS,
 * FLOWRT_TEST_RECOVERY_MS (the host's `recoveryIntervalMs`, default 200; `0` turns its periodic passes off),
 * FLOWRT_TEST_LOG (`1`: warnings and errors go to stderr as JSON lines, the engine's default logger).
 */
import type { AddressInfo } from "node:net";
import { createFlowHost, defaultLogger, silentLogger } from "@flowrt/engine";
import { createFlowRouter } from "@flowrt/express";
import express from "express";
import { createPostgresStores } from "../stores.js";
import { board } from "./board-flow.js";
import { pauser } from "./pause-flow.js";

const connectionString = process.env.DATABASE_URL;
const schema = process.env.FLOWRT_TEST_SCHEMA;
if (!connectionString || !schema) {
  process.stderr.write("host-process needs DATABASE_URL and FLOWRT_TEST_SCHEMA\n");
  process.exit(2);
}

const stores = createPostgresStores({ connectionString, schema, max: 20 });
const host = createFlowHost({
  flows: [board, pauser],
  stores,
  logger: process.env.FLOWRT_TEST_LOG === "1" ? defaultLogger : silentLogger,
  hostId: process.env.FLOWRT_TEST_HOST,
  leaseMs: Number(process.env.FLOWRT_TEST_LEASE_MS ?? 5_000),
  recoveryIntervalMs: Number(process.env.FLOWRT_TEST_RECOVERY_MS ?? 200),
});
await host.start(); // runs stores.setup(): both hosts migrate the same fresh schema at once
const app = express();
app.use(createFlowRouter(host));
const server = app.listen(0, "127.0.0.1");
await new Promise<void>((resolve) => server.once("listening", resolve));
const { port } = server.address() as AddressInfo;
process.stdout.write(`listening http://127.0.0.1:${port}${host.basePath}\n`);

process.once("SIGTERM", () => {
  server.closeAllConnections();
  server.close();
  void host
    .close()
    .then(() => stores.close())
    .then(() => process.exit(0));
});
