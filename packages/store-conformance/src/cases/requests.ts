import type { RequestRecord } from "@flowrt/core";
import { expect } from "vitest";
import { defineCase } from "../case.js";
import { isoAt, requestRecord, uid } from "../fixtures.js";

export const requestCases = [
  defineCase(
    "requests/create-get",
    "create is create-only and get returns a copy of what was stored",
    async (stores) => {
      const record = requestRecord({ orgId: uid("org"), input: { list: [1, { deep: true }] } });
      expect(await stores.requests.get(record.id)).toBeNull();
      expect(await stores.requests.create(record)).toBe(true);
      expect(await stores.requests.create({ ...record, action: "other", status: "running" })).toBe(false);

      const expected = structuredClone(record);
      (record.input as { list: unknown[] }).list.push("mutated after create");
      const read = await stores.requests.get(record.id);
      expect(read).toEqual(expected);
      read!.status = "failed";
      (read!.input as { list: unknown[] }).list.length = 0;
      expect(await stores.requests.get(record.id)).toEqual(expected);
    },
  ),

  defineCase("requests/update-cas", "update applies a patch only at the expected version", async (stores) => {
    const record = requestRecord();
    await stores.requests.create(record);

    const claim = { hostId: "host-1", until: Date.now() + 60_000 };
    const started = await stores.requests.update(record.id, 1, {
      status: "running",
      claim,
      startedAt: isoAt(Date.now()),
    });
    expect(started).toEqual({ ok: true, version: 2 });
    const running = await stores.requests.get(record.id);
    expect(running).toMatchObject({
      status: "running",
      claim,
      version: 2,
      input: record.input,
      action: "act",
    });

    const stale = await stores.requests.update(record.id, 1, { status: "aborted" });
    expect(stale).toEqual({ ok: false, current: { value: running, version: 2 } });
    expect(await stores.requests.get(record.id)).toEqual(running);

    const done = await stores.requests.update(record.id, 2, {
      status: "completed",
      output: { answer: 42 },
      claim: null,
      completedAt: isoAt(Date.now()),
      metadata: { origin: "action", note: "done" },
    });
    expect(done).toEqual({ ok: true, version: 3 });
    const completed = await stores.requests.get(record.id);
    expect(completed).toMatchObject({ status: "completed", output: { answer: 42 }, version: 3 });
    expect(completed?.claim).toBeUndefined();
    expect(completed?.metadata).toEqual({ origin: "action", note: "done" });

    const failed = await stores.requests.update(record.id, 3, {
      status: "failed",
      error: { code: "internal-error", message: "boom", retryable: true },
    });
    expect(failed).toEqual({ ok: true, version: 4 });
    expect((await stores.requests.get(record.id))?.error).toEqual({
      code: "internal-error",
      message: "boom",
      retryable: true,
    });

    expect(await stores.requests.update(uid("request"), 1, { status: "running" })).toEqual({
      ok: false,
      current: null,
    });
  }),

  defineCase(
    "requests/list-by-status",
    "listByStatus filters by status and durability, oldest first",
    async (stores) => {
      const base = Date.parse("2024-06-01T00:00:00.000Z");
      const mine = new Set<string>();
      const make = async (offset: number, overrides: Partial<RequestRecord>) => {
        const record = requestRecord({ createdAt: isoAt(base, offset), ...overrides });
        mine.add(record.id);
        await stores.requests.create(record);
        return record;
      };
      const queuedLate = await make(3000, { status: "queued", durable: true });
      const queuedEarly = await make(1000, { status: "queued", durable: false });
      const running = await make(2000, { status: "running", durable: true });
      await make(500, { status: "completed", durable: true });

      const ours = (records: RequestRecord[]) => records.filter((r) => mine.has(r.id));
      const isOldestFirst = (records: RequestRecord[]) =>
        records.every((r, i) => i === 0 || records[i - 1]!.createdAt <= r.createdAt);

      const queued = await stores.requests.listByStatus(["queued"]);
      expect(queued.every((r) => r.status === "queued")).toBe(true);
      expect(isOldestFirst(queued)).toBe(true);
      expect(ours(queued)).toEqual([queuedEarly, queuedLate]);

      const active = await stores.requests.listByStatus(["queued", "running"], { durableOnly: true });
      expect(active.every((r) => r.durable && (r.status === "queued" || r.status === "running"))).toBe(true);
      expect(ours(active)).toEqual([running, queuedLate]);

      const limited = await stores.requests.listByStatus(["queued", "running"], { limit: 1 });
      expect(limited).toHaveLength(1);
      expect(await stores.requests.listByStatus([])).toEqual([]);
    },
  ),

  defineCase("requests/active-registry", "markActive, listActive filters and clearActive", async (stores) => {
    const userId = uid("user");
    const entry = (flowId: string) => ({
      requestId: uid("request"),
      sessionId: uid("session"),
      flowId,
      userId,
      action: "act",
      startedAt: new Date().toISOString(),
    });
    const a = entry("flow-a");
    const b = { ...entry("flow-b"), orgId: uid("org") };
    await stores.requests.markActive(a);
    await stores.requests.markActive(b);
    await stores.requests.markActive(a);

    const byId = (x: { requestId: string }, y: { requestId: string }) => (x.requestId < y.requestId ? -1 : 1);
    expect((await stores.requests.listActive({ userId })).sort(byId)).toEqual([a, b].sort(byId));
    expect(await stores.requests.listActive({ userId, flowIds: ["flow-b"] })).toEqual([b]);
    expect(await stores.requests.listActive({ userId: uid("user") })).toEqual([]);
    const everyone = await stores.requests.listActive({ flowIds: ["flow-a"] });
    expect(everyone.filter((e) => e.userId === userId)).toEqual([a]);

    await stores.requests.clearActive(a.requestId);
    await stores.requests.clearActive(uid("request"));
    expect(await stores.requests.listActive({ userId })).toEqual([b]);

    // Oldest first, then by request id, whatever order they were marked in.
    const lister = uid("user");
    const at = (iso: string, requestId: string) => ({
      ...entry("flow-a"),
      userId: lister,
      requestId,
      startedAt: iso,
    });
    const late = at("2026-01-02T00:00:00.000Z", "r-a");
    const earlyB = at("2026-01-01T00:00:00.000Z", "r-b");
    const earlyC = at("2026-01-01T00:00:00.000Z", "r-c");
    for (const marked of [late, earlyC, earlyB]) await stores.requests.markActive(marked);
    expect((await stores.requests.listActive({ userId: lister })).map((e) => e.requestId)).toEqual([
      "r-b",
      "r-c",
      "r-a",
    ]);
    for (const marked of [late, earlyB, earlyC]) await stores.requests.clearActive(marked.requestId);
  }),
] as const;
