/**
 * One flowrt host in its own process, for the two-host tests: an Express app serving the board flow
 * over Postgres stores on the schema the test chose, on an ephemeral port. Prints `listening <url>`
 * once it serves, and shuts down cleanly on SIGTERM.
 *
 * Environment: DATABASE_URL, FLOWRT_TEST_SCHEMA, FLOWRT_TEST_HOST (a name), FLOWRT_TEST_LEASE_MS.
 */
import type { AddressInfo } from "node:net";
import { createFlowHost, silentLogger } from "@flowrt/engine";
import { createFlowRouter } from "@flowrt/express";
import express from "express";
import { createPostgresStores } from "../stores.js";
import { board } from "./board-flow.js";

const connectionString = process.env.DATABASE_URL;
const schema = process.env.FLOWRT_TEST_SCHEMA;
if (!connectionString || !schema) {
  process.stderr.write("host-process needs DATABASE_URL and FLOWRT_TEST_SCHEMA\n");
  process.exit(2);
}

const stores = createPostgresStores({ connectionString, schema, max: 20 });
const host = createFlowHost({
  flows: [board],
  stores,
  logger: silentLogger,
  hostId: process.env.FLOWRT_TEST_HOST,
  leaseMs: Number(process.env.FLOWRT_TEST_LEASE_MS ?? 5_000),
  recoveryIntervalMs: 200,
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
