/**
 * The Postgres peer of the `ingest` benchmark: what a team writes for durable webhook ingest without flowrt. Express
 * reads the raw body, `stripe.webhooks.constructEvent` verifies and parses it (the same secret and header as flowrt's
 * `alphaWebhookVerifier`), graphile-worker's `addJob` stores a job and the route answers 202; graphile-worker's
 * runner, in the same process and on the same `pg` pool, runs the same instant handler (`ingest-handler.ts`) on
 * each job with `concurrency` jobs at a time. Its tables live in their own schema of the benchmark's database.
 */
import express, { type Express } from "express";
import { Logger, run } from "graphile-worker";
import pg from "pg";
import Stripe from "stripe";
import { recordPayment } from "./ingest-handler.js";
import { PEER_PATH } from "./ingest-peer-memory.js";
import { BENCH_SECRET } from "./webhooks-flowrt-app.js";

export interface GraphilePeerOptions {
  connectionString: string;
  /** graphile-worker's schema (its `schema` option); created with its tables when the runner starts. */
  schema: string;
  /** Connections of the one pool the route's `addJob` and the runner share. */
  pool: number;
  /** Jobs the runner runs at once. */
  concurrency: number;
}

/** graphile-worker logs every job at `info`: only warnings and errors reach stderr. */
const quietLogger = new Logger(() => (level, message) => {
  if (level === "error" || level === "warning")
    process.stderr.write(`graphile-worker ${level}: ${message}\n`);
});

export async function createGraphilePeerApp(
  options: GraphilePeerOptions,
): Promise<{ app: Express; close(): Promise<void> }> {
  const pgPool = new pg.Pool({ connectionString: options.connectionString, max: options.pool });
  // A client's error (the server restarted) is reported, not a crash: the handlers graphile-worker asks for.
  const report = (error: Error) => process.stderr.write(`pg: ${error.message}\n`);
  pgPool.on("error", report);
  pgPool.on("connect", (client) => client.on("error", report));
  const runner = await run({
    pgPool,
    schema: options.schema,
    concurrency: options.concurrency,
    noHandleSignals: true,
    logger: quietLogger,
    taskList: {
      recordPayment: async (payload) => {
        await recordPayment(payload);
      },
    },
  });
  const stripe = new Stripe("sk_test_bench");
  const app = express();
  app.post(PEER_PATH, express.raw({ type: "application/json" }), async (req, res) => {
    let event: Stripe.Event;
    try {
      event = stripe.webhooks.constructEvent(req.body, req.headers["stripe-signature"] ?? "", BENCH_SECRET);
    } catch {
      res.status(400).json({ error: "invalid signature" });
      return;
    }
    await runner.addJob("recordPayment", event);
    res.status(202).json({ received: true });
  });
  return {
    app,
    async close() {
      await runner.stop();
      await pgPool.end();
    },
  };
}
