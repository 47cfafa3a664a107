/**
 * Child-process entry of the `pages` benchmark: `pages-server.ts <memory|fs|postgres> <items>` opens that store,
 * loads `<items>` items into it (straight into the store, see `pages-populate.ts` and `postgres-populate.ts`),
 * starts the host of `pages-app.ts` on it, serves it on a free loopback port and reports {@link PagesReady} over
 * IPC. The parent names the fs folder (`PAGES_FS_DIR`) and the Postgres schema (`PAGES_PG_SCHEMA`, on
 * `DATABASE_URL`) and removes them itself, so a child that dies leaves nothing behind. It answers a `usage`
 * message with its resident set and CPU time.
 *
 * fs: the items are written through a second instance of the store on the same folder with `fsync: false` (the
 * load is not what is measured), which is closed before the served instance opens the folder and replays its
 * key index, as a restarted host would.
 */
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { fileURLToPath } from "node:url";
import type { FlowStores } from "@flowrt/core";
import { createFsStores } from "@flowrt/store-fs";
import { createMemoryStores } from "@flowrt/store-memory";
import { createPostgresStores } from "@flowrt/store-postgres";
import pg from "pg";
import { createPagesApp, PAGES_SESSION } from "./pages-app.js";
import { populateThroughStore } from "./pages-populate.js";
import { bulkLoad } from "./postgres-populate.js";

export type PagesStoreKind = "memory" | "fs" | "postgres";

/** What the child reports once it serves. */
export interface PagesReady {
  type: "ready";
  port: number;
  sessionId: string;
  items: number;
  /** Seconds the load into the store took (Postgres: the bulk SQL, with its VACUUM ANALYZE). */
  populateSec: number;
  /** Seconds from opening the served store to listening (fs: replaying the key index). */
  openSec: number;
  /** The child's resident set in bytes once it serves. */
  rss: number;
  engine: string;
}

export type PagesChildMessage =
  | PagesReady
  | { type: "usage"; rss: number; cpuUs: number }
  | { type: "error"; message: string };

const send = (message: PagesChildMessage) => process.send?.(message);
const address = { scope: "session", scopeId: PAGES_SESSION, bucket: "shared" } as const;

function required(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`pages-server.ts needs ${name}`);
  return value;
}

/** Loads the items and opens the stores the host will serve from; `close` releases what was opened here. */
async function openPopulated(kind: PagesStoreKind, n: number) {
  if (kind === "memory") {
    const stores = createMemoryStores();
    const t0 = performance.now();
    await populateThroughStore(stores, address, n);
    return { stores, populateSec: (performance.now() - t0) / 1000, close: () => stores.close() };
  }
  if (kind === "fs") {
    const dir = required("PAGES_FS_DIR");
    const loader = createFsStores({ dir, fsync: false });
    const t0 = performance.now();
    await populateThroughStore(loader, address, n);
    await loader.close();
    const populateSec = (performance.now() - t0) / 1000;
    const stores = createFsStores({ dir });
    return { stores, populateSec, close: () => stores.close() };
  }
  const pool = new pg.Pool({ connectionString: required("DATABASE_URL"), max: 4 });
  const schema = required("PAGES_PG_SCHEMA");
  const stores = createPostgresStores({ pool, schema });
  await stores.setup();
  const t0 = performance.now();
  await bulkLoad(pool, schema, address, n);
  const populateSec = (performance.now() - t0) / 1000;
  return {
    stores: stores as FlowStores,
    populateSec,
    close: async () => {
      await stores.close();
      await pool.end();
    },
  };
}

async function main(): Promise<void> {
  if (!process.send)
    throw new Error("pages-server.ts must be started with an IPC channel (child_process.fork).");
  const kind = process.argv[2] as PagesStoreKind;
  const n = Number(process.argv[3]);
  if (!["memory", "fs", "postgres"].includes(kind) || !Number.isSafeInteger(n) || n < 0) {
    throw new Error(
      `usage: pages-server.ts <memory|fs|postgres> <items> (got ${process.argv.slice(2).join(" ")})`,
    );
  }
  const { stores, populateSec, close } = await openPopulated(kind, n);
  const t0 = performance.now();
  const { app, host } = await createPagesApp(stores);
  // The store reads back what was loaded before anything is timed (and the fs store replays its key index here,
  // not in the first request).
  const count = await stores.resources.count(address, "items/", { leaf: true });
  if (count !== n) throw new Error(`the ${kind} store counts ${count} items, not the ${n} loaded`);
  const server: Server = await new Promise((resolve, reject) => {
    const listening = app.listen(0, "127.0.0.1", (error?: Error) =>
      error ? reject(error) : resolve(listening),
    );
  });
  server.keepAliveTimeout = 120_000;
  const openSec = (performance.now() - t0) / 1000;

  process.on("message", (message: { type?: string }) => {
    if (message?.type === "usage") {
      const cpu = process.cpuUsage();
      send({ type: "usage", rss: process.memoryUsage().rss, cpuUs: cpu.user + cpu.system });
      return;
    }
    if (message?.type !== "close") return;
    server.closeAllConnections();
    server.close(() => {
      void host
        .close()
        .then(close)
        .finally(() => process.exit(0));
    });
  });
  // The parent going away (crash, Ctrl-C) must not leave a server behind.
  process.on("disconnect", () => process.exit(0));

  send({
    type: "ready",
    port: (server.address() as AddressInfo).port,
    sessionId: PAGES_SESSION,
    items: n,
    populateSec,
    openSec,
    rss: process.memoryUsage().rss,
    engine: fileURLToPath(import.meta.resolve("@flowrt/engine")),
  });
}

main().catch((error: unknown) => {
  send({ type: "error", message: error instanceof Error ? (error.stack ?? error.message) : String(error) });
  process.exit(1);
});
