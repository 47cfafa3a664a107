/**
 * The flowrt side: a flow with the `items` collection open to the client (create, read, update, delete,
 * state read; its first items inlined in the snapshot) and a `touch` action, on the memory store, served by
 * `createFlowRouter` (`app`; `http-node-adapter.ts` serves the same `host` on `node:http`). The host-level
 * resolver trusts `x-user-id`, so every addressed route runs the owner check as a real deployment would.
 */

import { createWriteStream } from "node:fs";
import { defineFlow, defineResourceCollection, handler, type PrincipalResolver } from "@flowrt/core";
import * as flowrtEngine from "@flowrt/engine";
import { createFlowHost, type FlowHost } from "@flowrt/engine";
import { createFlowRouter } from "@flowrt/express";
import { createMemoryStores } from "@flowrt/store-memory";
import express, { type Express } from "express";
import { z } from "zod";
import {
  BENCH_USER,
  COLLECTION,
  FLOW_ID,
  itemStateSchema,
  PREFETCH_WINDOW,
  seededContent,
  seededKey,
  seededState,
  USER_HEADER,
} from "./http-fixture.js";

const items = defineResourceCollection({
  pattern: "items/*",
  scope: "session",
  stateSchema: itemStateSchema,
  prefetchWindow: PREFETCH_WINDOW,
  client: { content: { read: true, create: true, update: true, delete: true }, state: { read: true } },
});

/** The soak's action: reads one item, increments its counter and the session's. */
const touch = handler({
  name: "touch",
  resources: { items },
  inputSchema: z.object({ topic: z.string() }),
  execute: async (input, ctx) => {
    const item = await ctx.resources.items.get(input.topic);
    await item.incState({ n: 1 });
    await ctx.session.incState({ touches: 1 });
    return { n: item.state.n };
  },
});

/** Fills the read session: `count` items with state and content. */
const seed = handler({
  name: "seed",
  resources: { items },
  inputSchema: z.object({ count: z.number().int().min(0) }),
  execute: async (input, ctx) => {
    for (let i = 0; i < input.count; i++) {
      const item = await ctx.resources.items.create(seededKey(i), seededState(i));
      await item.writeContent(seededContent(i));
    }
    return { count: input.count };
  },
});

const benchFlow = defineFlow({
  kind: FLOW_ID,
  session: { stateSchema: z.object({ touches: z.number().default(0) }), client: { expose: ["touches"] } },
  resources: { [COLLECTION]: items },
  actions: { touch: { block: touch }, seed: { block: seed } },
});

const headerResolver: PrincipalResolver = (context) => {
  const value = context.request?.headers[USER_HEADER];
  return typeof value === "string" && value !== "" ? { userId: value } : null;
};

export interface FlowrtApp {
  app: Express;
  host: FlowHost;
  readSessionId: string;
  writeSessionId: string;
  /** Removes finished requests older than `maxAgeMs` (the host keeps every request record otherwise). */
  purge(maxAgeMs: number): Promise<number>;
  /** Ids of requests that failed or were aborted, and how many are still queued or running. */
  requestStats(): Promise<{ failedIds: string[]; unfinished: number }>;
  close(): Promise<void>;
}

/**
 * The host's logger: without `accessLog`, the default logger with the access line off (warnings and errors go to
 * stderr, which the benchmark collects); with it, a JSON-lines logger at `info` writing every access line to
 * `/dev/null` through a file stream, as a service writing its log to a file or a pipe would. A baseline tree from
 * before the access line ignores both (its engine has neither option, nor `createLogger`).
 */
function loggerOptions(accessLog: boolean) {
  if (!accessLog) return { accessLog: false };
  const { createLogger } = flowrtEngine as Partial<typeof flowrtEngine>;
  if (!createLogger) throw new Error("the access-log variant needs an engine with createLogger");
  return {
    accessLog: true,
    logger: createLogger({ level: "info", destination: createWriteStream("/dev/null") }),
  };
}

/** Builds the app and seeds `count` items (state and content) into the read session. */
export async function createFlowrtApp(
  count: number,
  telemetry?: { storeSpans: boolean },
  accessLog = false,
): Promise<FlowrtApp> {
  const stores = createMemoryStores();
  const host = createFlowHost({
    flows: [benchFlow],
    stores,
    resolvePrincipal: headerResolver,
    ...loggerOptions(accessLog),
    ...(telemetry ? { telemetry } : {}),
  });
  await host.start();
  const caller = { source: "bench", principal: { userId: BENCH_USER } };
  const read = await host.createSession(FLOW_ID, caller, { sessionId: "read" });
  const write = await host.createSession(FLOW_ID, caller, { sessionId: "write" });
  const seeded = await host.dispatch({
    source: "bench",
    flowKind: FLOW_ID,
    action: "seed",
    input: { count },
    principal: { userId: BENCH_USER },
    sessionId: read.id,
    responseEmitter: null,
  });
  const record = await seeded.done;
  if (record.status !== "completed") throw new Error(`seeding failed: ${JSON.stringify(record.error)}`);

  const app = express();
  app.disable("x-powered-by");
  app.use(createFlowRouter(host));
  return {
    app,
    host,
    readSessionId: read.id,
    writeSessionId: write.id,
    purge: (maxAgeMs) => stores.requests.purgeFinished({ maxAgeMs }),
    async requestStats() {
      const failed = await stores.requests.listByStatus(["failed", "aborted"]);
      const unfinished = await stores.requests.listByStatus(["queued", "running"]);
      return { failedIds: failed.map((r) => r.id), unfinished: unfinished.length };
    },
    async close() {
      await host.close();
      await stores.close();
    },
  };
}
