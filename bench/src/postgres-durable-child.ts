/**
 * One measurement of durable-action throughput on Postgres, in its own process (`postgres-durable.ts` starts it,
 * from this checkout or from a baseline tree's copy, so it runs that tree's built packages): a host over
 * `createPostgresStores` on a fresh schema, `BENCH_DURABLE_WORKERS` callers each invoking a durable action that does
 * one `ctx.session.incState({ n: 1 })` through `host.invoke` and following its events to the terminal one, for
 * `BENCH_DURABLE_SECONDS` after a one-second warm-up. Prints one JSON line (`DurableResult`) on stdout.
 *
 * `BENCH_DURABLE_MODE=unfenced` strips the fence from every store write the engine makes (the store then runs the
 * unfenced statements); `fenced` passes them on. Both count the writes that came with a fence.
 */
import { randomBytes } from "node:crypto";
import { fileURLToPath } from "node:url";
import { defineFlow, type Fence, type FlowStores, handler } from "@flowrt/core";
import { createFlowHost, silentLogger } from "@flowrt/engine";
import { createPostgresStores } from "@flowrt/store-postgres";
import pg from "pg";
import { z } from "zod";

export interface DurableResult {
  requestsPerSec: number;
  completed: number;
  failed: number;
  /** Store writes that carried a fence, per completed request (0 on an engine that does not fence). */
  fencedWritesPerRequest: number;
  /** The file `@flowrt/engine` resolved to: which tree's build ran. */
  engine: string;
}

/** Wraps the stores' fenceable writes: counts those given a fence and, with `strip`, drops the fence. */
function countFences(stores: FlowStores, strip: boolean): { stores: FlowStores; fenced: () => number } {
  let fenced = 0;
  const pass = (fence: Fence | undefined): Fence | undefined => {
    if (fence === undefined) return undefined;
    fenced++;
    return strip ? undefined : fence;
  };
  const { scopeState, resources, requests } = stores;
  return {
    fenced: () => fenced,
    stores: {
      ...stores,
      scopeState: { ...scopeState, put: (a, v, c, f) => scopeState.put(a, v, c, pass(f)) },
      resources: {
        ...resources,
        putState: (a, k, s, c, f) => resources.putState(a, k, s, c, pass(f)),
        deleteState: (a, k, c, f) => resources.deleteState(a, k, c, pass(f)),
        putContent: (a, k, body, f) => resources.putContent(a, k, body, pass(f)),
        deleteContent: (a, k, f) => resources.deleteContent(a, k, pass(f)),
      },
      requests: { ...requests, appendEvent: (e, f) => requests.appendEvent(e, pass(f)) },
    },
  };
}

const counter = defineFlow({
  kind: "counter",
  session: { stateSchema: z.object({ n: z.number().default(0) }) },
  actions: {
    inc: {
      durable: true,
      block: handler({
        name: "inc",
        inputSchema: z.object({}),
        execute: async (_input, ctx) => {
          await ctx.session.incState({ n: 1 });
          return {};
        },
      }),
    },
  },
});

async function main(): Promise<DurableResult> {
  const url = process.env.DATABASE_URL;
  if (!url) throw new Error("DATABASE_URL is not set");
  const strip = process.env.BENCH_DURABLE_MODE === "unfenced";
  const seconds = Number(process.env.BENCH_DURABLE_SECONDS ?? 5);
  const workers = Number(process.env.BENCH_DURABLE_WORKERS ?? 16);
  const schema = `flowrt_bench_${randomBytes(4).toString("hex")}`;
  const base = createPostgresStores({ connectionString: url, schema, max: 16 });
  const admin = new pg.Pool({ connectionString: url, max: 1 });
  const { stores, fenced } = countFences(base, strip);
  const host = createFlowHost({ flows: [counter], stores, logger: silentLogger });
  await host.start();
  const caller = { source: "script", principal: { userId: "bench" } };
  let completed = 0;
  let failed = 0;
  const counted = { on: false };
  const sessions: string[] = [];

  const once = async (sessionId: string | undefined): Promise<string> => {
    const { request, session } = await host.invoke("counter", "inc", caller, {
      input: {},
      ...(sessionId ? { sessionId } : {}),
    });
    let last = "";
    for await (const event of host.events(request.id)) last = event.type;
    if (counted.on) {
      if (last === "request.completed") completed++;
      else failed++;
    }
    return session.id;
  };

  const run = async (ms: number) => {
    const deadline = performance.now() + ms;
    await Promise.all(
      sessions.map(async (sessionId) => {
        while (performance.now() < deadline) await once(sessionId);
      }),
    );
  };

  try {
    for (let i = 0; i < workers; i++) sessions.push(await once(undefined));
    await run(1000);
    const fencedBefore = fenced();
    counted.on = true;
    const t0 = performance.now();
    await run(seconds * 1000);
    const elapsed = (performance.now() - t0) / 1000;
    // Every increment landed exactly once: one per completed request, warm-up included.
    const { rows } = await admin.query<{ total: string; requests: string }>(
      `SELECT (SELECT coalesce(sum((value->>'n')::bigint), 0) FROM "${schema}".flowrt_scope_state WHERE scope = 'session') AS total,
        (SELECT count(*) FROM "${schema}".flowrt_requests WHERE status = 'completed') AS requests`,
    );
    if (Number(rows[0]?.total) !== Number(rows[0]?.requests)) {
      throw new Error(
        `the sessions count ${rows[0]?.total} increments for ${rows[0]?.requests} completed requests`,
      );
    }
    return {
      requestsPerSec: completed / elapsed,
      completed,
      failed,
      fencedWritesPerRequest: completed === 0 ? 0 : (fenced() - fencedBefore) / completed,
      engine: fileURLToPath(import.meta.resolve("@flowrt/engine")),
    };
  } finally {
    await host.close();
    await base.close();
    await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await admin.end();
  }
}

process.stdout.write(`${JSON.stringify(await main())}\n`);
