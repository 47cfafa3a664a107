/**
 * A server of the `ingest` benchmark, in its own process so the load generator does not share its event loop.
 * `tsx ingest-server.ts <mode>` prints `engine <file>` (flowrt modes: the file `@flowrt/engine` resolved to, which
 * checkout's build) and then `listening <port>` once it serves on 127.0.0.1. Over IPC (when forked) it answers
 * `{ type: "stats", id }` with its CPU time so far (user + system, µs), the handler's runs so far and, with
 * `INGEST_COUNT_ROUND_TRIPS=1`, the queries it has sent to the database (`ingest-round-trips.ts`).
 *
 * - `flowrt-memory`: Express + `createFlowRouter(host)` on the memory store (`webhooks-flowrt-app.ts`).
 * - `flowrt-postgres`: the same host on `createPostgresStores` (a pool of `INGEST_POOL` connections) in the schema
 *   `INGEST_SCHEMA` of `INGEST_DATABASE_URL`, the host's default retention.
 * - `peer-memory`: Express + `constructEvent` + an in-process queue (`ingest-peer-memory.ts`).
 * - `peer-postgres`: Express + `constructEvent` + graphile-worker `addJob`, its runner in this process
 *   (`ingest-peer-graphile.ts`) with `INGEST_WORKER_CONCURRENCY` jobs at a time.
 *
 * The peers' modules are imported only in their modes: a server started from a baseline tree (`baseline-tree.ts`)
 * runs the flowrt modes, and that tree's `bench` need not have stripe or graphile-worker.
 */
import { fileURLToPath } from "node:url";
import type { Express } from "express";
import { countRun, handlerRuns } from "./ingest-handler.js";
import { countRoundTrips, roundTrips } from "./ingest-round-trips.js";
import { createWebhookFlowrtApp } from "./webhooks-flowrt-app.js";

export type IngestMode = "flowrt-memory" | "flowrt-postgres" | "peer-memory" | "peer-postgres";

export interface IngestStats {
  cpuUs: number;
  runs: number;
  roundTrips: number;
}

const mode = process.argv[2] as IngestMode;
const env = (name: string) => {
  const value = process.env[name];
  if (!value) throw new Error(`${mode}: ${name} is not set`);
  return value;
};

async function serve(): Promise<{ app: Express; close(): Promise<void> }> {
  switch (mode) {
    case "flowrt-memory":
      return createWebhookFlowrtApp(0, { onRun: countRun });
    case "flowrt-postgres": {
      countRoundTrips(["@flowrt/store-postgres"]);
      const { createPostgresStores } = await import("@flowrt/store-postgres");
      const stores = createPostgresStores({
        connectionString: env("INGEST_DATABASE_URL"),
        schema: env("INGEST_SCHEMA"),
        max: Number(env("INGEST_POOL")),
      });
      return createWebhookFlowrtApp(0, { stores, onRun: countRun });
    }
    case "peer-memory": {
      const { createMemoryPeerApp } = await import("./ingest-peer-memory.js");
      return createMemoryPeerApp();
    }
    case "peer-postgres": {
      countRoundTrips(["graphile-worker"]);
      const { createGraphilePeerApp } = await import("./ingest-peer-graphile.js");
      return createGraphilePeerApp({
        connectionString: env("INGEST_DATABASE_URL"),
        schema: env("INGEST_SCHEMA"),
        pool: Number(env("INGEST_POOL")),
        concurrency: Number(env("INGEST_WORKER_CONCURRENCY")),
      });
    }
    default:
      throw new Error(`unknown mode ${mode}`);
  }
}

const served = await serve();
if (mode.startsWith("flowrt")) {
  process.stdout.write(`engine ${fileURLToPath(import.meta.resolve("@flowrt/engine"))}\n`);
}
const server = served.app.listen(0, "127.0.0.1", () => {
  const address = server.address();
  process.stdout.write(`listening ${typeof address === "object" && address ? address.port : 0}\n`);
});
process.on("message", (message: { type?: string; id?: number }) => {
  if (message?.type !== "stats") return;
  const cpu = process.cpuUsage();
  const stats: IngestStats = { cpuUs: cpu.user + cpu.system, runs: handlerRuns(), roundTrips: roundTrips() };
  process.send?.({ type: "stats", id: message.id, ...stats });
});
// The parent going away (crash, Ctrl-C) must not leave a server behind.
process.on("disconnect", () => process.exit(0));
process.on("SIGTERM", () => {
  server.close();
  server.closeAllConnections();
  void served.close().finally(() => process.exit(0));
});
