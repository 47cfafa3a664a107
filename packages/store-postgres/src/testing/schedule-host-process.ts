/**
 * One flowrt host in its own process for the scheduled-runs test: the `clock` flow, whose schedule `everySecond`
 * (`* * * * * *`) runs as user `ops`, over Postgres stores on the schema the test chose. Prints `listening <url>`
 * once it serves (as `host-process.ts` does), and shuts down cleanly on SIGTERM.
 *
 * Environment as `host-process.ts`'s. SIGUSR2 arms a freeze: the first tick this host claims afterwards freezes the
 * process (it prints `frozen <tick ms>` and stops itself with SIGSTOP) right after the claim landed and before the
 * tick is fired, holding the claim, as a long GC pause or a frozen VM would.
 */
import type { AddressInfo } from "node:net";
import { defineFlow, type FlowStores, handler } from "@flowrt/core";
import { createFlowHost, defaultLogger, silentLogger } from "@flowrt/engine";
import { createFlowRouter } from "@flowrt/express";
import express from "express";
import { z } from "zod";
import { createPostgresStores } from "../stores.js";

const connectionString = process.env.DATABASE_URL;
const schema = process.env.FLOWRT_TEST_SCHEMA;
if (!connectionString || !schema) {
  process.stderr.write("schedule-host-process needs DATABASE_URL and FLOWRT_TEST_SCHEMA\n");
  process.exit(2);
}

const tick = handler({
  name: "tick",
  inputSchema: z.object({ at: z.string() }),
  execute: async (input) => ({ ranFor: input.at }),
});
const clock = defineFlow({
  kind: "clock",
  schedules: {
    everySecond: {
      cron: "* * * * * *",
      block: tick,
      principal: { userId: "ops" },
      input: (t: { scheduledAt: string }) => ({ at: t.scheduledAt }),
    },
  },
});

const postgres = createPostgresStores({ connectionString, schema, max: 10 });
let armed = false;
let frozen = false;
process.on("SIGUSR2", () => {
  armed = true;
});
// The stores as the host sees them: the one claim to freeze on stops the process once it has landed.
const stores: FlowStores = {
  ...postgres,
  schedules: {
    claimTick: async (...args) => {
      const result = await postgres.schedules.claimTick(...args);
      if (result.ok && armed && !frozen) {
        frozen = true;
        process.stdout.write(`frozen ${result.record.at}\n`);
        process.kill(process.pid, "SIGSTOP");
      }
      return result;
    },
    fireTick: (...args) => postgres.schedules.fireTick(...args),
    latestTick: (...args) => postgres.schedules.latestTick(...args),
  },
  setup: () => postgres.setup(),
  close: () => postgres.close(),
};

const host = createFlowHost({
  flows: [clock],
  stores,
  logger: process.env.FLOWRT_TEST_LOG === "1" ? defaultLogger : silentLogger,
  hostId: process.env.FLOWRT_TEST_HOST,
  leaseMs: Number(process.env.FLOWRT_TEST_LEASE_MS ?? 5_000),
  recoveryIntervalMs: Number(process.env.FLOWRT_TEST_RECOVERY_MS ?? 200),
});
await host.start();
const app = express();
app.use(createFlowRouter(host));
const server = app.listen(0, "127.0.0.1");
await new Promise<void>((resolve) => server.once("listening", resolve));
const { port } = server.address() as AddressInfo;
process.stdout.write(`listening http://127.0.0.1:${port}${host.basePath}\n`);

process.once("SIGTERM", () => {
  server.close();
  void host
    .close({ graceMs: 2_000 })
    .then(() => postgres.close())
    .finally(() => process.exit(0));
});
