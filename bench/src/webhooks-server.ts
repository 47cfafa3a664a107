/**
 * A webhook server for the ingest benchmarks, run in its own process so the load generator does not share
 * its event loop. `tsx webhooks-server.ts <mode>` prints `listening <port>` once it serves on 127.0.0.1; a
 * flowrt mode prints `engine <file>` before it, the file `@flowrt/engine` resolved to (which checkout's build).
 * Over IPC (when forked) it answers `{ type: "usage", id }` with its CPU time so far (user + system, µs).
 *
 * - `bare`: an Express route that reads the raw body, verifies it with the same preset and answers 202.
 * - `flowrt-instant`: Express + `createFlowRouter(host)`; the binding's handler returns at once.
 * - `flowrt-slow`: the same, with a handler that takes 2 s.
 * - `bare-run`, `bare-slow`: the bare route that also parses the verified body and runs the same handler
 *   (instant, or 2 s) on it in the background after the 202: the least a server that acknowledges first
 *   and runs later holds per delivery in flight, for the latency comparison.
 */
import { setTimeout as sleep } from "node:timers/promises";
import { fileURLToPath } from "node:url";
import express from "express";
import { benchVerifier, createWebhookFlowrtApp } from "./webhooks-flowrt-app.js";

const mode = process.argv[2];
const handlerMs = mode === "flowrt-slow" || mode === "bare-slow" ? 2_000 : 0;
const verify = benchVerifier();

const app = express();
let close: () => Promise<void> = async () => {};
if (mode === "bare-slow" || mode === "bare-run") {
  const run = async (input: { id: string }) => {
    if (handlerMs > 0) await sleep(handlerMs);
    return { id: input.id };
  };
  app.post("/hook", express.raw({ type: () => true, limit: "1mb" }), (req, res) => {
    const body = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
    if (verify(body, req.headers) !== true) {
      res.status(401).json({ error: "signature" });
      return;
    }
    void run(JSON.parse(body.toString("utf8"))).catch(() => {});
    res.status(202).json({ accepted: true });
  });
} else if (mode === "bare") {
  app.post("/hook", express.raw({ type: () => true, limit: "1mb" }), (req, res) => {
    const body = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
    if (verify(body, req.headers) === true) res.status(202).json({ accepted: true });
    else res.status(401).json({ error: "signature" });
  });
} else if (mode === "flowrt-instant" || mode === "flowrt-slow") {
  const flowrt = await createWebhookFlowrtApp(handlerMs);
  app.use(flowrt.router);
  process.stdout.write(`engine ${fileURLToPath(import.meta.resolve("@flowrt/engine"))}\n`);
  close = flowrt.close;
} else {
  process.stderr.write(`unknown mode ${mode}\n`);
  process.exit(2);
}

const server = app.listen(0, "127.0.0.1", () => {
  const address = server.address();
  process.stdout.write(`listening ${typeof address === "object" && address ? address.port : 0}\n`);
});
process.on("message", (message: { type?: string; id?: number }) => {
  if (message?.type !== "usage") return;
  const cpu = process.cpuUsage();
  process.send?.({ type: "usage", id: message.id, cpuUs: cpu.user + cpu.system });
});
// The parent going away (crash, Ctrl-C) must not leave a server behind.
process.on("disconnect", () => process.exit(0));
process.on("SIGTERM", () => {
  server.close();
  server.closeAllConnections();
  void close().finally(() => process.exit(0));
});
