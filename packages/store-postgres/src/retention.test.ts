import { randomUUID } from "node:crypto";
import { DEFAULT_RETENTION, DefinitionError, defineFlow, type RequestRecord } from "@flowrt/core";
import { createFlowHost, silentLogger } from "@flowrt/engine";
import { afterAll, describe, expect, it } from "vitest";
import { createPgliteDriver } from "./pglite-driver.js";
import { DEFAULT_POSTGRES_RETENTION, type PostgresRetentionOptions } from "./retention.js";
import { createPostgresStores } from "./stores.js";
import { closeSharedPglite, sharedPglite, uniqueSchema } from "./testing/databases.js";

const delay = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const record = (status: RequestRecord["status"], completedAgoMs?: number): RequestRecord => ({
  id: `request-${randomUUID()}`,
  sessionId: "s1",
  flowId: "flow",
  flowKind: "flow",
  action: "act",
  userId: "u1",
  status,
  input: null,
  metadata: {},
  durable: false,
  version: 1,
  createdAt: new Date(Date.now() - 60_000).toISOString(),
  ...(completedAgoMs === undefined
    ? {}
    : { completedAt: new Date(Date.now() - completedAgoMs).toISOString() }),
});

// A resolver, so that the host's start says nothing (a flow open to anyone is a warning): every warning counts below.
const flow = defineFlow({ kind: "retained", authentication: { resolvePrincipal: () => null }, actions: {} });

/** Stores made with `retention` (the store's own, older option), served by a host that applies it. */
async function storesWith(retention: PostgresRetentionOptions | false) {
  const errors: unknown[] = [];
  const stores = createPostgresStores({
    driver: createPgliteDriver(await sharedPglite()),
    schema: uniqueSchema(),
    retention,
    onError: (error) => errors.push(error),
  });
  const logger = {
    ...silentLogger,
    warn: (data: object | string) => void errors.push(typeof data === "string" ? undefined : data),
  };
  const host = createFlowHost({ flows: [flow], stores, logger, recoveryIntervalMs: 0 });
  return { stores, host, errors };
}

afterAll(() => closeSharedPglite());

describe("background retention (the host applies the store's option)", () => {
  it("starts once setup() has run, removes finished requests past maxAgeMs, and stops on close()", async () => {
    const { stores, host, errors } = await storesWith({ maxAgeMs: 1_000, intervalMs: 20 });
    await delay(100); // no tables yet: a purge now would fail, and none runs
    expect(errors).toEqual([]);
    await host.start(); // runs setup()
    const old = record("completed", 5_000);
    const recent = record("failed", 0);
    const running = record("running");
    for (const r of [old, recent, running]) await stores.requests.create(r);
    await expect.poll(() => stores.requests.get(old.id), { timeout: 5_000 }).toBeNull();
    expect(await stores.requests.get(recent.id)).toEqual(recent);
    expect(await stores.requests.get(running.id)).toEqual(running);
    expect(errors).toEqual([]);
    await host.close();
    const afterClose = record("completed", 5_000);
    await stores.requests.create(afterClose);
    await delay(100);
    expect(await stores.requests.get(afterClose.id)).toEqual(afterClose);
    await stores.close();
  });

  it("applies maxCount too, keeping the newest finished requests", async () => {
    const { stores, host, errors } = await storesWith({ maxCount: 1, intervalMs: 20 });
    await host.start();
    const older = record("completed", 2_000);
    const newer = record("completed", 1_000);
    for (const r of [older, newer]) await stores.requests.create(r);
    await expect.poll(() => stores.requests.get(older.id), { timeout: 5_000 }).toBeNull();
    expect(await stores.requests.get(newer.id)).toEqual(newer);
    expect(errors).toEqual([]);
    await host.close();
    await stores.close();
  });

  it("retention: false never purges", async () => {
    const { stores, host } = await storesWith(false);
    await host.start();
    const old = record("completed", 30 * 24 * 3_600_000);
    await stores.requests.create(old);
    await delay(150);
    expect(await stores.requests.get(old.id)).toEqual(old);
    await host.close();
    await stores.close();
  });

  it("checks its options when the stores are made; its defaults are the one default", () => {
    const make = (retention: unknown) => () =>
      createPostgresStores({ connectionString: "postgres://nowhere/db", retention: retention as false });
    expect(make({ intervalMs: 0 })).toThrow(/retention.intervalMs must be a positive integer/);
    expect(make({ maxAgeMs: -1 })).toThrow(/retention.maxAgeMs must be a non-negative integer/);
    expect(make({ maxCount: 1.5 })).toThrow(/retention.maxCount must be a non-negative integer/);
    expect(make("weekly")).toThrow(DefinitionError);
    expect(DEFAULT_POSTGRES_RETENTION).toBe(DEFAULT_RETENTION);
  });
});
