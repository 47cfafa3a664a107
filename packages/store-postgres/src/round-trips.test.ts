/**
 * Round trips to the database per webhook delivery (issue 20): accepting it and running it to its end take at most
 * four statements on a real server: the session and the request in one, the claim with the active entry and
 * `request.started` in one, the run's scope state in one, and the end with the blocks' events, the terminal event
 * and the active entry's removal in one. Counted at the driver: every statement and transaction boundary it sends.
 */
import { randomUUID } from "node:crypto";
import { defineFlow, handler } from "@flowrt/core";
import { createFlowHost, silentLogger } from "@flowrt/engine";
import { createFlowRouter } from "@flowrt/express";
import express from "express";
import request from "supertest";
import { afterAll, describe, expect, it } from "vitest";
import { z } from "zod";
import type { PostgresDriver } from "./driver.js";
import { createPostgresStores } from "./stores.js";
import { adminQuery, closeSharedPglite, testDriver, uniqueSchema } from "./testing/databases.js";

afterAll(closeSharedPglite);

/** The driver, counting the statements sent through it (a transaction's BEGIN and COMMIT included). */
function counting(driver: PostgresDriver) {
  const sent: string[] = [];
  const counted: PostgresDriver = {
    query: (text, params) => {
      sent.push(text);
      return driver.query(text, params);
    },
    transaction: (fn) => {
      sent.push("BEGIN", "COMMIT");
      return driver.transaction((tx) =>
        fn({
          query: (text, params) => {
            sent.push(text);
            return tx.query(text, params);
          },
        }),
      );
    },
    listen: (channel, onNotify, onLost) => driver.listen(channel, onNotify, onLost),
    close: () => driver.close(),
  };
  return { driver: counted, sent };
}

const recorded = handler({
  name: "record",
  inputSchema: z.object({ id: z.string(), type: z.string() }),
  execute: async (input) => ({ id: input.id }),
});

const payments = defineFlow({
  kind: "payments",
  authentication: { requireUser: false, defaultUserId: "provider" },
  webhooks: { provider: { on: { "invoice.paid": { block: recorded } } } },
});

describe("round trips per webhook delivery", () => {
  it("accepting a delivery and running it to its end takes at most 4 statements", async () => {
    const schema = uniqueSchema();
    const { driver, sent } = counting(await testDriver());
    const stores = createPostgresStores({ driver, schema });
    await stores.setup();
    const host = createFlowHost({
      flows: [payments],
      stores,
      logger: silentLogger,
      // Retention and recovery passes run on their own timers: not per delivery, and not in this window.
      retention: { maxAgeMs: 60_000, maxCount: 10_000, intervalMs: 3_600_000 },
      webhookProviders: {
        provider: {
          verify: () => true,
          eventType: (payload: { type?: string }) => payload.type ?? null,
          deliveryId: (payload: { id?: string }) => payload.id,
        },
      },
    });
    await host.start();
    const app = express().use(createFlowRouter(host));
    try {
      const deliver = async () => {
        const id = `evt_${randomUUID()}`;
        const answer = await request(app)
          .post("/api/flows/payments/webhooks/provider")
          .set("content-type", "application/json")
          .send(JSON.stringify({ id, type: "invoice.paid" }));
        expect(answer.status).toBe(202);
        const requestId = (answer.body as { requestId: string }).requestId;
        for (let i = 0; i < 200; i++) {
          // Read beside the stores, so that only the delivery's own statements are counted.
          const [row] = await adminQuery<{ status: string }>(
            `SELECT status FROM "${schema}".flowrt_requests WHERE id = $1`,
            [requestId],
          );
          if (row?.status === "completed") return requestId;
          await new Promise((resolve) => setTimeout(resolve, 10));
        }
        throw new Error(`request ${requestId} did not complete`);
      };
      await deliver(); // warm: the first delivery may prepare what later ones reuse
      const before = sent.length;
      const requestId = await deliver();
      // A periodic recovery pass (its own timer, not the delivery's) may fall in the window: not counted.
      const delivery = sent.slice(before).filter((text) => !text.includes("WHERE status = ANY("));
      expect(delivery.length).toBeLessThanOrEqual(4);
      // And it did everything: its events in order, its session stored, nothing left active.
      const events = await stores.requests.readEvents(requestId);
      expect(events.map((event) => event.type)).toEqual([
        "request.started",
        "block.started",
        "block.completed",
        "request.completed",
      ]);
      expect(events.map((event) => event.seq)).toEqual([1, 2, 3, 4]);
      const record = (await stores.requests.get(requestId))!;
      expect(await stores.sessions.get(record.sessionId)).toMatchObject({ metadata: { ephemeral: true } });
      expect(await stores.requests.listActive({})).toEqual([]);
    } finally {
      await host.close();
      await stores.close();
      await adminQuery(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    }
  });
});
