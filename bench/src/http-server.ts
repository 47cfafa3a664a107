/**
 * Child-process entry of the HTTP benchmarks: `http-server.ts <flowrt|bare|flowrt-node|bare-node>` starts that
 * server (flowrt on Express, bare Express, flowrt's handler on `node:http`, bare `node:http`) on a free loopback port, seeds it (`HTTP_BENCH_ITEMS` items, default 10000), reports {@link ServerReady} over IPC
 * and answers `usage` requests ({@link ServerUsage}: memory, CPU time, failed actions), so the load
 * generator in the parent never shares this event loop.
 *
 * flowrt kinds only: every 5 s a housekeeping pass notes failed or aborted requests and how many are unfinished,
 * then, with `HTTP_BENCH_PURGE_MS` set, purges finished requests older than that. That purge is the
 * application's retention policy: the host itself keeps every request record and its events.
 */
import { createServer, type RequestListener, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { fileURLToPath } from "node:url";
import { createBareApp } from "./http-bare-app.js";
import { createBareNode } from "./http-bare-node.js";
import { type ChildMessage, type ParentMessage, SERVER_KINDS, type ServerKind } from "./http-fixture.js";
import { createFlowrtApp, type FlowrtApp } from "./http-flowrt-app.js";
import { registerTelemetry, telemetryVariant } from "./http-telemetry.js";

const send = (message: ChildMessage) => process.send?.(message);

const HOUSEKEEPING_MS = 5_000;

function housekeeping(flowrt: FlowrtApp, purgeMs: number) {
  const failed = new Set<string>();
  let unfinished = 0;
  const pass = async () => {
    const stats = await flowrt.requestStats();
    for (const id of stats.failedIds) failed.add(id);
    unfinished = stats.unfinished;
    if (purgeMs > 0) await flowrt.purge(purgeMs);
  };
  const timer = setInterval(() => {
    pass().catch((error: unknown) => process.stderr.write(`housekeeping failed: ${String(error)}\n`));
  }, HOUSEKEEPING_MS);
  return {
    stop: () => clearInterval(timer),
    failed: () => failed.size,
    unfinished: () => unfinished,
  };
}

async function main(): Promise<void> {
  if (!process.send)
    throw new Error("http-server.ts must be started with an IPC channel (child_process.fork).");
  const kind = process.argv[2] as ServerKind | undefined;
  if (kind === undefined || !SERVER_KINDS.includes(kind))
    throw new Error(`usage: http-server.ts <${SERVER_KINDS.join("|")}> (got ${kind})`);
  const count = Number(process.env.HTTP_BENCH_ITEMS ?? 10_000);
  const purgeMs = Number(process.env.HTTP_BENCH_PURGE_MS ?? 0);

  // Every kind is a request listener on a plain `http.Server`, which is what Express's `app.listen` makes too.
  let listener: RequestListener;
  let sessions: { readSessionId: string; writeSessionId: string };
  let closeApp = async () => {};
  let keeper: ReturnType<typeof housekeeping> | undefined;
  if (kind === "flowrt" || kind === "flowrt-node") {
    // HTTP_BENCH_TELEMETRY: which telemetry variant this server runs (set by the parent, see http-telemetry.ts).
    const variant = telemetryVariant(process.env.HTTP_BENCH_TELEMETRY);
    registerTelemetry(variant);
    const flowrt = await createFlowrtApp(
      count,
      variant === "sdk-stores" ? { storeSpans: true } : undefined,
      variant === "access-log",
    );
    // Imported only when used: a baseline tree (`baseline-tree.ts`) may predate `createMountedHandler`.
    listener =
      kind === "flowrt" ? flowrt.app : (await import("./http-node-adapter.js")).nodeListener(flowrt.host);
    sessions = flowrt;
    closeApp = flowrt.close;
    keeper = housekeeping(flowrt, purgeMs);
  } else if (kind === "bare") {
    const bare = createBareApp(count);
    listener = bare.app;
    sessions = bare;
  } else {
    const bare = createBareNode(count);
    listener = bare.listener;
    sessions = bare;
  }

  const server: Server = createServer(listener);
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject).listen(0, "127.0.0.1", () => resolve());
  });
  // autocannon keeps connections open for the whole run; never cut them for idling between requests.
  server.keepAliveTimeout = 120_000;

  process.on("message", (message: ParentMessage) => {
    if (message.type === "usage") {
      const memory = process.memoryUsage();
      const cpu = process.cpuUsage();
      send({
        type: "usage",
        id: message.id,
        rss: memory.rss,
        heapUsed: memory.heapUsed,
        cpuUs: cpu.user + cpu.system,
        failedRequests: keeper?.failed() ?? 0,
        unfinishedRequests: keeper?.unfinished() ?? 0,
      });
    } else if (message.type === "close") {
      keeper?.stop();
      server.closeAllConnections();
      server.close(() => {
        void closeApp().finally(() => process.exit(0));
      });
    }
  });
  // The parent going away (crash, Ctrl-C) must not leave a server behind.
  process.on("disconnect", () => process.exit(0));

  send({
    type: "ready",
    port: (server.address() as AddressInfo).port,
    readSessionId: sessions.readSessionId,
    writeSessionId: sessions.writeSessionId,
    items: count,
    engine: fileURLToPath(import.meta.resolve("@flowrt/engine")),
  });
}

main().catch((error: unknown) => {
  send({ type: "error", message: error instanceof Error ? (error.stack ?? error.message) : String(error) });
  process.exit(1);
});
