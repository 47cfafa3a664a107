/**
 * A collection's `maxInstances` across two hosts on one schema: two `createFlowHost`s in this process, each on
 * its own `createPostgresStores` (its own pool on a server; its own stores over the one PGlite without
 * DATABASE_URL), each behind its own Express router on a real port. Only the database can hold the cap
 * between them. The same race between two host processes is in `two-host-processes.test.ts`.
 */
import type { AddressInfo } from "node:net";
import { createFlowHost, silentLogger } from "@flowrt/engine";
import { createFlowRouter } from "@flowrt/express";
import express from "express";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { PostgresStores } from "./stores.js";
import { board } from "./testing/board-flow.js";
import { adminQuery, backend, closeSharedPglite, storesOn, uniqueSchema } from "./testing/databases.js";
import { call } from "./testing/host-processes.js";

interface ServedHost {
  url: string;
  stop(): Promise<void>;
}

/** A host with the board flow on `stores`, served over HTTP on an ephemeral port. */
async function serve(stores: PostgresStores): Promise<ServedHost> {
  const host = createFlowHost({ flows: [board], stores, logger: silentLogger });
  await host.start();
  const server = express().use(createFlowRouter(host)).listen(0, "127.0.0.1");
  await new Promise<void>((resolve) => server.once("listening", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}${host.basePath}`,
    async stop() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      await host.close();
      await stores.close();
    },
  };
}

describe(`maxInstances across two hosts on one database (${backend})`, () => {
  const schema = uniqueSchema();
  let a: ServedHost;
  let b: ServedHost;

  beforeAll(async () => {
    a = await serve(await storesOn(schema));
    b = await serve(await storesOn(schema));
  });

  afterAll(async () => {
    await a?.stop();
    await b?.stop();
    await adminQuery(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await closeSharedPglite();
  });

  // Each host alone held the cap before the store did; the two together passed it in some trials, not all.
  const TRIALS = 8;

  it(`50 concurrent creates spread over both hosts, maxInstances 10 and eviction none: exactly 10 items, 40 collection-full (${TRIALS} sessions)`, async () => {
    const createdOn = { a: 0, b: 0 };
    for (let trial = 0; trial < TRIALS; trial++) {
      const created = await call(a, "POST", "/board/sessions", { userId: "u1" });
      expect(created.status).toBe(201);
      const sessionId = created.body.session.id as string;
      const items = `/sessions/${sessionId}/resources/capped`;

      const replies = await Promise.all(
        Array.from({ length: 50 }, (_, i) =>
          call(i % 2 === 0 ? a : b, "POST", items, { topic: `t${String(i).padStart(2, "0")}` }),
        ),
      );
      const made = replies.filter((reply) => reply.status === 201);
      const refused = replies.filter((reply) => reply.status !== 201);
      expect(made).toHaveLength(10);
      expect(refused).toHaveLength(40);
      for (const reply of refused) expect(reply.body).toMatchObject({ status: 409, code: "collection-full" });
      for (const [i, reply] of replies.entries())
        if (reply.status === 201) createdOn[i % 2 === 0 ? "a" : "b"]++;

      // Each host lists exactly the ten that were created; a refused topic was never stored.
      const madeTopics = made.map((reply) => reply.body.topic as string).sort();
      for (const host of [a, b]) {
        const listed = await call(host, "GET", `${items}?limit=50`);
        expect(listed.status).toBe(200);
        expect(listed.body.pagination.total).toBe(10);
        expect(listed.body.items.map((item: { topic: string }) => item.topic).sort()).toEqual(madeTopics);
      }
      const rows = await adminQuery<{ live: string }>(
        `SELECT count(*) AS live FROM "${schema}".flowrt_resources WHERE scope_id = $1 AND NOT deleted`,
        [sessionId],
      );
      expect(Number(rows[0]?.live)).toBe(10);
    }
    // Both hosts created some: the race really was between the two.
    expect(createdOn.a).toBeGreaterThan(0);
    expect(createdOn.b).toBeGreaterThan(0);
  });
});
