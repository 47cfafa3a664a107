/**
 * One flowrt host in its own process over a filesystem store, for the taking-turns test: a flow with one durable
 * action (`slowIncrement`: sleeps past the lease, then adds 1 to the session's `done`). Everything it reports is one
 * JSON line on stdout: `{ ready }` once started, `{ effect }` from the action, `{ log }` from the host's logger,
 * and replies to the commands it reads from stdin, one JSON line each:
 * - `{ "invoke": true }` starts the action in a new session: `{ invoked: { requestId, sessionId } }`;
 * - `{ "settle": "<requestId>" }` waits until the request finished: `{ settled: RequestRecord }`.
 * It closes the host and the stores on SIGTERM.
 *
 * Environment: FLOWRT_TEST_DIR (the store folder), FLOWRT_TEST_HOST (a name), FLOWRT_TEST_LEASE_MS,
 * FLOWRT_TEST_SLEEP_MS.
 */
import { createInterface } from "node:readline";
import { defineFlow, handler } from "@flowrt/core";
import { z } from "zod";
import { createFsStores } from "../create-fs-stores.js";

/** What this harness uses of `@flowrt/engine`. */
interface EngineModule {
  createFlowHost(options: Record<string, unknown>): {
    start(): Promise<void>;
    close(): Promise<void>;
    invoke(
      flowId: string,
      action: string,
      caller: { source: string; principal: { userId: string } },
      body: { input: unknown },
    ): Promise<{ request: { id: string }; session: { id: string } }>;
  };
}

// The engine's own tests depend on this store, so this package cannot list `@flowrt/engine` as a dependency (a
// cycle in the workspace's build graph); the harness loads the engine's sources by path instead.
const ENGINE = new URL("../../../engine/src/index.ts", import.meta.url).href;
const { createFlowHost } = (await import(ENGINE)) as EngineModule;

const dir = process.env.FLOWRT_TEST_DIR;
const name = process.env.FLOWRT_TEST_HOST ?? "host";
if (!dir) {
  process.stderr.write("fs-host-process needs FLOWRT_TEST_DIR\n");
  process.exit(2);
}
const sleepMs = Number(process.env.FLOWRT_TEST_SLEEP_MS ?? 2_500);
const print = (line: object): void => {
  process.stdout.write(`${JSON.stringify(line)}\n`);
};

const turns = defineFlow({
  kind: "turns",
  session: { stateSchema: z.object({ done: z.number().default(0) }) },
  actions: {
    slowIncrement: {
      durable: true,
      block: handler({
        name: "slowIncrement",
        execute: async (_input, ctx) => {
          print({ effect: "started", host: name, requestId: ctx.requestId });
          await new Promise((resolve) => setTimeout(resolve, sleepMs));
          await ctx.session.incState({ done: 1 });
          print({ effect: "incremented", host: name, requestId: ctx.requestId });
          return { host: name };
        },
      }),
    },
  },
});

interface TestLogger {
  debug(): void;
  info: LogFn;
  warn: LogFn;
  error: LogFn;
  child(): TestLogger;
}
type LogFn = (obj: object | string, msg?: string) => void;

const log =
  (level: string) =>
  (obj: object | string, msg?: string): void =>
    print({
      log: typeof obj === "string" ? { level, message: obj } : { level, message: msg, ...(obj as object) },
    });
const logger: TestLogger = {
  debug() {},
  info: log("info"),
  warn: log("warn"),
  error: log("error"),
  child: () => logger,
};
const stores = createFsStores({ dir, retention: false });
const host = createFlowHost({
  flows: [turns],
  stores,
  logger,
  hostId: name,
  leaseMs: Number(process.env.FLOWRT_TEST_LEASE_MS ?? 2_000),
  recoveryIntervalMs: 200,
});
await host.start();
process.once("SIGTERM", () => {
  void host
    .close()
    .then(() => stores.close())
    .then(() => process.exit(0));
});
print({ ready: name });

for await (const text of createInterface({ input: process.stdin })) {
  const command = JSON.parse(text) as { invoke?: true; settle?: string };
  if (command.invoke) {
    const { request, session } = await host.invoke(
      "turns",
      "slowIncrement",
      { source: "test", principal: { userId: "u1" } },
      { input: null },
    );
    print({ invoked: { requestId: request.id, sessionId: session.id } });
  } else if (command.settle) {
    for (;;) {
      const record = await stores.requests.get(command.settle);
      if (record && ["completed", "failed", "aborted"].includes(record.status)) {
        print({ settled: record });
        break;
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
}
