/**
 * Child-process entry of `pair.bench.ts`: `pair-server.ts <baseline src dir>` serves the baseline's and this
 * checkout's flowrt apps side by side in this one process: for each side the HTTP benchmark's app
 * (`http-flowrt-app.ts`, `HTTP_BENCH_ITEMS` items seeded, default 10000) and the webhook benchmark's
 * (`webhooks-flowrt-app.ts`, instant handler), each on its own loopback port. The baseline side imports the copies
 * of those files in the baseline's bench folder, so its `@flowrt/*` imports resolve to the baseline's packages.
 *
 * Over IPC it reports {@link PairReady} once all four listen, and answers `{ type: "usage", id }` with the
 * process's CPU time so far. The parent loads one side at a time, so the CPU used over a round is that side's.
 */

import type { Server } from "node:http";
import { createRequire } from "node:module";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import type { Express } from "express";
import type { FlowrtApp } from "./http-flowrt-app.js";
import type { RouteTarget } from "./http-routes.js";
import type { createWebhookFlowrtApp } from "./webhooks-flowrt-app.js";

export interface PairSide extends RouteTarget {
  label: "baseline" | "current";
  /** Base URL of the HTTP app. */
  httpUrl: string;
  /** Where webhook deliveries are posted. */
  webhookUrl: string;
  /** The file `@flowrt/engine` resolved to for this side. */
  engine: string;
}

export interface PairReady {
  type: "ready";
  sides: PairSide[];
}

const listen = (app: Express) =>
  new Promise<Server>((resolve, reject) => {
    const server = app.listen(0, "127.0.0.1", (error?: Error) => (error ? reject(error) : resolve(server)));
  });
const urlOf = (server: Server) => `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

async function side(label: PairSide["label"], srcDir: string, count: number) {
  const from = (file: string) => import(pathToFileURL(join(srcDir, file)).href);
  const http = (await from("http-flowrt-app.ts")) as { createFlowrtApp(count: number): Promise<FlowrtApp> };
  const hooks = (await from("webhooks-flowrt-app.ts")) as {
    createWebhookFlowrtApp: typeof createWebhookFlowrtApp;
    WEBHOOK_PATH: string;
  };
  const flowrt = await http.createFlowrtApp(count);
  const webhook = await hooks.createWebhookFlowrtApp(0);
  // Each side on its own tree's Express (the profile split counts Express's frames to the side whose files they are).
  const servers = [await listen(flowrt.app), await listen(webhook.app)];
  const ready: PairSide = {
    label,
    httpUrl: urlOf(servers[0]!),
    webhookUrl: `${urlOf(servers[1]!)}${hooks.WEBHOOK_PATH}`,
    readSessionId: flowrt.readSessionId,
    writeSessionId: flowrt.writeSessionId,
    items: count,
    engine: createRequire(join(srcDir, "pair-server.ts")).resolve("@flowrt/engine"),
  };
  return ready;
}

async function main(): Promise<void> {
  const baselineSrc = process.argv[2];
  if (!process.send || !baselineSrc) {
    throw new Error("usage: pair-server.ts <baseline src dir>, forked with an IPC channel");
  }
  const count = Number(process.env.HTTP_BENCH_ITEMS ?? 10_000);
  const here = fileURLToPath(new URL(".", import.meta.url));
  const sides = [await side("baseline", baselineSrc, count), await side("current", here, count)];
  process.on("message", (message: { type?: string; id?: number }) => {
    if (message?.type === "close") process.exit(0);
    if (message?.type !== "usage") return;
    const cpu = process.cpuUsage();
    process.send?.({ type: "usage", id: message.id, cpuUs: cpu.user + cpu.system });
  });
  process.on("disconnect", () => process.exit(0));
  process.send({ type: "ready", sides } satisfies PairReady);
}

main().catch((error: unknown) => {
  process.send?.({
    type: "error",
    message: error instanceof Error ? (error.stack ?? error.message) : String(error),
  });
  process.exit(1);
});
