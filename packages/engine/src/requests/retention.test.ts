import { defineFlow, handler, type RequestRecord } from "@flowrt/core";
import { createMemoryStores } from "@flowrt/store-memory";
import { describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { createFlowHost } from "../host.js";
import type { HostLogger } from "../logger.js";
import { silentLogger } from "../logger.js";
import { DEFAULT_RETENTION, resolveRetention } from "./retention.js";

const flow = defineFlow({
  kind: "kept",
  actions: {
    ping: {
      block: handler({
        name: "ping",
        inputSchema: z.object({}).optional(),
        execute: async () => ({ ok: 1 }),
      }),
    },
  },
});

function finished(id: string, completedAt: string): RequestRecord {
  return {
    id,
    sessionId: "s1",
    flowId: "kept",
    flowKind: "kept",
    action: "ping",
    userId: "ada",
    status: "completed",
    input: null,
    output: null,
    metadata: {},
    durable: false,
    version: 1,
    createdAt: completedAt,
    completedAt,
  };
}

describe("retention, one policy above every store", () => {
  it("has one default for every store: 7 days, 10 000 finished requests, every 10 minutes", () => {
    expect(DEFAULT_RETENTION).toEqual({ maxAgeMs: 604_800_000, maxCount: 10_000, intervalMs: 600_000 });
    expect(resolveRetention(undefined, "createFlowHost")).toEqual({
      policy: { maxAgeMs: 604_800_000, maxCount: 10_000 },
      intervalMs: 600_000,
    });
    expect(resolveRetention({ maxCount: Number.POSITIVE_INFINITY }, "x")).toEqual({
      policy: { maxAgeMs: 604_800_000 },
      intervalMs: 600_000,
    });
    expect(resolveRetention(false, "x")).toBe(false);
  });

  it("refuses invalid options when the host is made, naming the option", () => {
    const stores = createMemoryStores({ retention: false });
    const make = (retention: unknown) => () =>
      createFlowHost({ flows: [flow], stores, logger: silentLogger, retention: retention as false });
    expect(make({ intervalMs: 0 })).toThrow(
      /createFlowHost: retention.intervalMs must be a positive integer/,
    );
    expect(make({ maxAgeMs: -1 })).toThrow(/retention.maxAgeMs must be a non-negative integer/);
    expect(make({ maxCount: 1.5 })).toThrow(/retention.maxCount must be a non-negative integer or Infinity/);
    expect(make("weekly")).toThrow(/`retention` must be an object or false/);
  });

  it("purges finished requests on the host's schedule once started, and stops on close", async () => {
    const stores = createMemoryStores({ retention: false });
    const old = new Date(Date.now() - 60_000).toISOString();
    await stores.requests.create(finished("old", old));
    await stores.requests.create(finished("new", new Date().toISOString()));
    const host = createFlowHost({
      flows: [flow],
      stores,
      logger: silentLogger,
      recoveryIntervalMs: 0,
      retention: { maxAgeMs: 30_000, intervalMs: 20 },
    });
    await host.start();
    await vi.waitFor(async () => expect(await stores.requests.get("old")).toBeNull(), { timeout: 2_000 });
    expect(await stores.requests.get("new")).not.toBeNull();
    await host.close();
    await stores.requests.create(finished("after-close", old));
    await new Promise((resolve) => setTimeout(resolve, 80));
    expect(await stores.requests.get("after-close")).not.toBeNull();
  });

  it("purges nothing with retention: false", async () => {
    const stores = createMemoryStores({ retention: false });
    const purge = vi.spyOn(stores.requests, "purgeFinished");
    const host = createFlowHost({
      flows: [flow],
      stores,
      logger: silentLogger,
      recoveryIntervalMs: 0,
      retention: false,
    });
    await host.start();
    await new Promise((resolve) => setTimeout(resolve, 60));
    await host.close();
    expect(purge).not.toHaveBeenCalled();
  });

  it("logs a failed purge without its stack, and tries again at the next tick", async () => {
    const stores = createMemoryStores({ retention: false });
    const purge = vi.spyOn(stores.requests, "purgeFinished").mockRejectedValueOnce(new Error("disk on fire"));
    const warnings: Array<Record<string, unknown> | undefined> = [];
    const logger: HostLogger = { ...silentLogger, warn: (_message, data) => warnings.push(data) };
    const host = createFlowHost({
      flows: [flow],
      stores,
      logger,
      recoveryIntervalMs: 0,
      retention: { intervalMs: 20 },
    });
    await host.start();
    await vi.waitFor(() => expect(purge.mock.calls.length).toBeGreaterThanOrEqual(2), { timeout: 2_000 });
    await host.close();
    expect(warnings).toContainEqual({ error: "Error: disk on fire" });
  });
});
