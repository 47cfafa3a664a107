import { mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { DEFAULT_RETENTION, defineFlow, handler, type RequestRecord, resolveRetention } from "@flowrt/core";
import { createFsStores } from "@flowrt/store-fs";
import { createMemoryStores } from "@flowrt/store-memory";
import { describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { createFlowHost } from "../host.js";
import type { HostLogger } from "../logger.js";
import { silentLogger } from "../logger.js";

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
    const logger: HostLogger = {
      ...silentLogger,
      warn: (data: object | string) =>
        void warnings.push(typeof data === "string" ? undefined : (data as Record<string, unknown>)),
    };
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

  it("applies a retention given to the memory store itself: finished requests and their events go on its timer", async () => {
    vi.useFakeTimers();
    try {
      const stores = createMemoryStores({ retention: { maxAgeMs: 1000, maxCount: 2, intervalMs: 500 } });
      const host = createFlowHost({ flows: [flow], stores, logger: silentLogger, recoveryIntervalMs: 0 });
      await host.start();
      const now = new Date().toISOString();
      await stores.requests.create(finished("done", now));
      await stores.requests.create({
        ...finished("running", now),
        status: "running",
        completedAt: undefined,
      });
      await stores.requests.appendEvent({ requestId: "done", type: "request.completed", at: now, data: {} });
      for (const id of ["c1", "c2", "c3"]) {
        await vi.advanceTimersByTimeAsync(10);
        await stores.requests.create({ ...finished(id, new Date().toISOString()), status: "failed" });
      }
      await vi.advanceTimersByTimeAsync(500);
      // maxCount 2 keeps the two newest finished requests.
      expect(await stores.requests.get("done")).toBeNull();
      expect(await stores.requests.readEvents("done")).toEqual([]);
      expect(await stores.requests.get("c1")).toBeNull();
      expect(await stores.requests.get("c3")).not.toBeNull();
      await vi.advanceTimersByTimeAsync(1500);
      expect(await stores.requests.get("c3")).toBeNull();
      expect(await stores.requests.get("running")).not.toBeNull();
      await host.close();
      expect(vi.getTimerCount()).toBe(0);
      await stores.close();
    } finally {
      vi.useRealTimers();
    }
  });

  it("applies a retention given to the fs store itself: finished requests and their event logs leave the folder", async () => {
    const dir = await mkdtemp(path.join(tmpdir(), "flowrt-retention-"));
    try {
      const stores = createFsStores({ dir, retention: { intervalMs: 20, maxAgeMs: 60_000, maxCount: 100 } });
      const host = createFlowHost({ flows: [flow], stores, logger: silentLogger, recoveryIntervalMs: 0 });
      await host.start();
      const hourAgo = new Date(Date.now() - 3_600_000).toISOString();
      await stores.requests.create(finished("old", hourAgo));
      await stores.requests.appendEvent({ requestId: "old", type: "t", at: "", data: {} });
      await stores.requests.create({
        ...finished("running", hourAgo),
        status: "running",
        completedAt: undefined,
      });
      await vi.waitFor(async () => expect(await stores.requests.get("old")).toBeNull(), { timeout: 5_000 });
      expect(await stores.requests.readEvents("old")).toEqual([]);
      const files = await readdir(dir, { recursive: true });
      expect(files.filter((f) => f.endsWith(".jsonl"))).toEqual([]);
      expect(await stores.requests.get("running")).toMatchObject({ status: "running" });
      await host.close();
      await stores.close();
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
