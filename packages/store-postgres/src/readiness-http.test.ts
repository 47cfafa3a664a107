import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { connect, createServer, type Socket } from "node:net";
import { defineFlow } from "@flowrt/core";
import { createFlowHost, type HostLogger } from "@flowrt/engine";
import { createFlowRouter } from "@flowrt/express";
import express from "express";
import pg from "pg";
import { afterEach, describe, expect, it } from "vitest";
import { createPostgresStores, type PostgresStores } from "./stores.js";
import { DATABASE_URL, uniqueSchema } from "./testing/databases.js";

const flow = defineFlow({
  kind: "probe",
  authentication: { resolvePrincipal: async () => ({ userId: "u" }) },
});
const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()!().catch(() => {});
});

const warnings: string[] = [];
/** Keeps each warning as its message and its fields as JSON (an error as its message). */
const logger: HostLogger = {
  debug() {},
  info() {},
  warn: (obj: object | string, msg?: string) => {
    warnings.push(
      typeof obj === "string"
        ? obj
        : `${msg} ${JSON.stringify(obj, (_key, value) => (value instanceof Error ? value.message : value))}`,
    );
  },
  error() {},
  child: () => logger,
};

/** Serves a host on `stores` over Express on a socket; the host is started unless `start` is false. */
async function serve(stores: PostgresStores, start: boolean) {
  const host = createFlowHost({
    flows: [flow],
    stores,
    logger,
    recoveryIntervalMs: 0,
    readinessTimeoutMs: 300,
  });
  if (start) await host.start();
  const app = express();
  app.use(createFlowRouter(host));
  const server: Server = await new Promise((resolve) => {
    const listening = app.listen(0, "127.0.0.1", () => resolve(listening));
  });
  cleanups.push(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
    await host.close();
    await stores.close();
  });
  const { port } = server.address() as AddressInfo;
  return async (path: string) => {
    const response = await fetch(`http://127.0.0.1:${port}${host.basePath}${path}`);
    return { status: response.status, body: (await response.json()) as any };
  };
}

/**
 * A TCP proxy to the database at `DATABASE_URL` that can be frozen: from then on it passes no byte either way, as a
 * database that hangs (or a network that drops packets) would, connections already open included.
 */
async function freezableProxy(): Promise<{ url: string; freeze(): void; cut(): void }> {
  const target = new URL(DATABASE_URL!);
  const state = { frozen: false };
  const sockets = new Set<Socket>();
  const server = createServer((client) => {
    const upstream = connect(Number(target.port || 5432), target.hostname);
    sockets.add(client).add(upstream);
    client.on("data", (chunk) => state.frozen || upstream.write(chunk));
    upstream.on("data", (chunk) => state.frozen || client.write(chunk));
    client.on("error", () => upstream.destroy());
    upstream.on("error", () => client.destroy());
    client.on("close", () => upstream.destroy());
    upstream.on("close", () => client.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  cleanups.push(async () => {
    for (const socket of sockets) socket.destroy();
    await new Promise((resolve) => server.close(resolve));
  });
  const url = new URL(target);
  url.hostname = "127.0.0.1";
  url.port = String((server.address() as AddressInfo).port);
  const cut = () => {
    for (const socket of sockets) socket.destroy();
  };
  return { url: url.toString(), freeze: () => (state.frozen = true), cut };
}

async function dropSchema(schema: string): Promise<void> {
  const admin = new pg.Client({ connectionString: DATABASE_URL! });
  await admin.connect();
  await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  await admin.end();
}

describe.skipIf(!DATABASE_URL)("GET /readyz on PostgreSQL, through real HTTP", () => {
  it("200 while the database answers SELECT 1; 503 within the timeout once it hangs; /healthz stays 200", async () => {
    const proxy = await freezableProxy();
    const schema = uniqueSchema();
    cleanups.push(() => dropSchema(schema));
    const stores = createPostgresStores({ connectionString: proxy.url, schema, connectionTimeoutMs: 5_000 });
    const get = await serve(stores, true);
    // Runs before the host and stores close: their connections, frozen mid-query, end here.
    cleanups.push(async () => proxy.cut());
    expect(await get("/readyz")).toEqual({
      status: 200,
      body: { status: "ok", checks: { started: true, draining: false, store: "ok" } },
    });

    proxy.freeze();
    const began = Date.now();
    const answer = await get("/readyz");
    expect(Date.now() - began).toBeLessThan(2_000);
    expect(answer).toEqual({
      status: 503,
      body: { status: "unavailable", checks: { started: true, draining: false, store: "timeout" } },
    });
    expect((await get("/healthz")).status).toBe(200);
  });

  it("a database that refuses connections is 503 store: error, and the log names what was tried", async () => {
    const probe = createServer();
    await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", resolve));
    const { port } = probe.address() as AddressInfo;
    const schema = uniqueSchema();
    cleanups.push(() => dropSchema(schema));
    const stores = createPostgresStores({ connectionString: DATABASE_URL!, schema });
    const get = await serve(stores, true);
    // The same host, its pool's database gone: stores on a port nothing listens on answer the probe here.
    await new Promise((resolve) => probe.close(resolve));
    const gone = createPostgresStores({ connectionString: `postgres://flowrt:pw@127.0.0.1:${port}/flowrt` });
    cleanups.push(() => gone.close());
    (stores as { ping: () => Promise<void> }).ping = () => gone.ping();
    warnings.length = 0;
    const answer = await get("/readyz");
    expect(answer).toEqual({
      status: 503,
      body: { status: "unavailable", checks: { started: true, draining: false, store: "error" } },
    });
    expect(warnings.join("\n")).toContain(`127.0.0.1:${port}, database \\"flowrt\\", user \\"flowrt\\"`);
  });
});
