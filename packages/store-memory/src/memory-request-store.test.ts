import type { RequestRecord } from "@flowrt/core";
import { describe, expect, it } from "vitest";
import { createMemoryRequestStore } from "./memory-request-store.js";

function request(id: string, overrides: Partial<RequestRecord> = {}): RequestRecord {
  return {
    id,
    sessionId: "s1",
    flowId: "f",
    flowKind: "f",
    action: "a",
    userId: "u",
    status: "queued",
    input: { list: [1] },
    metadata: { origin: "action" },
    durable: false,
    version: 1,
    createdAt: "2024-01-01T00:00:00.000Z",
    ...overrides,
  };
}

const newStore = () =>
  createMemoryRequestStore((error) => {
    throw error;
  });

describe("memory request store", () => {
  it("keeps nothing of a patch the caller mutates afterwards", async () => {
    const store = newStore();
    await store.create(request("r"));
    const claim = { hostId: "h", until: 5 };
    const patch = { status: "completed" as const, output: { items: [1] }, claim, metadata: { m: [1] } };
    expect(await store.update("r", 1, patch)).toEqual({ ok: true, version: 2 });
    claim.until = 99;
    patch.output.items.push(2);
    patch.metadata.m.push(2);
    expect(await store.get("r")).toMatchObject({
      claim: { hostId: "h", until: 5 },
      output: { items: [1] },
      metadata: { m: [1] },
      version: 2,
    });
  });

  it("hands out a fresh record on every read, lost update and listing", async () => {
    const store = newStore();
    await store.create(request("r"));
    const a = await store.get("r");
    const b = await store.get("r");
    expect(a).toEqual(b);
    expect(a).not.toBe(b);
    expect(a!.input).not.toBe(b!.input);
    const lost = await store.update("r", 7, { status: "running" });
    if (lost.ok) throw new Error("expected a lost compare-and-swap");
    (lost.current!.value.metadata as { origin: string }).origin = "changed";
    const [listed] = await store.listByStatus(["queued"]);
    (listed!.input as { list: number[] }).list.push(2);
    expect(await store.get("r")).toEqual(request("r"));
  });

  it("moves a request between status lists only when its status changes, and releases a claim with null", async () => {
    const store = newStore();
    await store.create(request("r"));
    await store.update("r", 1, { status: "running", claim: { hostId: "h", until: 1 } });
    await store.update("r", 2, { claim: { hostId: "h", until: 2 } });
    expect((await store.listByStatus(["running"])).map((r) => r.claim)).toEqual([{ hostId: "h", until: 2 }]);
    expect(await store.listByStatus(["queued"])).toEqual([]);
    await store.update("r", 3, { status: "completed", claim: null, completedAt: "2024-01-01T00:00:01.000Z" });
    const done = await store.get("r");
    expect(done).toMatchObject({ status: "completed", version: 4 });
    expect(done).not.toHaveProperty("claim");
    expect((await store.listByStatus(["completed", "running"])).map((r) => r.id)).toEqual(["r"]);
  });

  it("keeps a request's claim epoch through create and update, and after the claim is released", async () => {
    const store = newStore();
    await store.create(request("r"));
    expect(await store.get("r")).not.toHaveProperty("epoch");
    expect(store.epochOf("r")).toBe(0);
    expect(store.epochOf("missing")).toBeUndefined();
    await store.update("r", 1, { status: "running", claim: { hostId: "h", until: 1 }, epoch: 1 });
    await store.update("r", 2, { claim: { hostId: "h", until: 2 } });
    expect(await store.get("r")).toMatchObject({ epoch: 1, version: 3 });
    await store.update("r", 3, { claim: { hostId: "other", until: 3 }, epoch: 2 });
    await store.update("r", 4, { status: "completed", claim: null });
    const done = await store.get("r");
    expect(done).toMatchObject({ status: "completed", epoch: 2 });
    expect(done).not.toHaveProperty("claim");
    expect(store.epochOf("r")).toBe(2);
    await store.create(request("s", { epoch: 5 }));
    expect(await store.get("s")).toEqual(request("s", { epoch: 5 }));
  });

  it("appends an event under a fence only while no newer claim is stored", async () => {
    const store = newStore();
    await store.create(request("r", { epoch: 2 }));
    const received: number[] = [];
    store.subscribe("r", (event) => received.push(event.seq));
    const event = { requestId: "r", type: "text.delta", at: "2024-01-01T00:00:00.000Z", data: {} };
    await expect(store.appendEvent(event, { requestId: "r", epoch: 1 })).rejects.toMatchObject({
      code: "lease-lost",
    });
    expect(await store.readEvents("r")).toEqual([]);
    expect(received).toEqual([]);
    expect(await store.appendEvent(event, { requestId: "r", epoch: 2 })).toMatchObject({ seq: 1 });
    expect(received).toEqual([1]);
  });

  it("lists oldest first, then by id, and materializes only up to the limit", async () => {
    const store = newStore();
    await store.create(request("b", { createdAt: "2024-01-01T00:00:02.000Z" }));
    await store.create(request("c", { createdAt: "2024-01-01T00:00:01.000Z" }));
    await store.create(request("a", { createdAt: "2024-01-01T00:00:02.000Z", durable: true }));
    expect((await store.listByStatus(["queued", "queued"])).map((r) => r.id)).toEqual(["c", "a", "b"]);
    expect((await store.listByStatus(["queued"], { limit: 2 })).map((r) => r.id)).toEqual(["c", "a"]);
    expect((await store.listByStatus(["queued"], { durableOnly: true })).map((r) => r.id)).toEqual(["a"]);
  });

  it("refuses a malformed record or patch and writes nothing", async () => {
    const store = newStore();
    await expect(store.create(request("x", { input: { n: 1n } as never }))).rejects.toThrow(
      /request input is not JSON/,
    );
    await expect(store.create(request("x", { input: undefined as never }))).rejects.toThrow(/input/);
    await expect(store.create(request("x", { sessionId: 1 as never }))).rejects.toThrow(/sessionId/);
    await expect(store.create(request("x", { durable: "yes" as never }))).rejects.toThrow(/durable/);
    await expect(store.create(request("x", { metadata: [] as never }))).rejects.toThrow(/metadata/);
    expect(await store.get("x")).toBeNull();
    expect(await store.listByStatus(["queued"])).toEqual([]);

    await store.create(request("r"));
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    await expect(store.update("r", 1, { status: "completed", output: cyclic as never })).rejects.toThrow(
      /request output is not JSON/,
    );
    await expect(store.update("r", 1, { claim: { hostId: "h" } as never })).rejects.toThrow(/claim/);
    await expect(store.update("r", 1, { completedAt: 5 as never })).rejects.toThrow(/completedAt/);
    await expect(store.update("r", 1, { epoch: -1 })).rejects.toThrow(/epoch/);
    await expect(store.create(request("y", { epoch: "1" as never }))).rejects.toThrow(/epoch/);
    expect(await store.get("r")).toEqual(request("r"));
    expect((await store.listByStatus(["queued"])).map((r) => r.id)).toEqual(["r"]);
  });

  it("copies active entries in and out, and refuses one with a non-string field", async () => {
    const store = newStore();
    const entry = { requestId: "r", sessionId: "s", flowId: "f", userId: "u", action: "a", startedAt: "t" };
    await store.markActive(entry);
    entry.userId = "changed";
    const [listed] = await store.listActive({ userId: "u" });
    expect(listed).toEqual({ ...entry, userId: "u" });
    listed!.flowId = "changed";
    expect(await store.listActive({ flowIds: ["f"] })).toHaveLength(1);
    await expect(store.markActive({ ...entry, requestId: "q", startedAt: 1 as never })).rejects.toThrow(
      /startedAt/,
    );
    expect(await store.listActive({})).toHaveLength(1);
  });

  it("retention counts a finish time it cannot parse from the creation time", async () => {
    const store = newStore();
    const now = Date.parse("2024-01-02T00:00:00.000Z");
    await store.create(request("odd", { status: "failed", completedAt: "not a date" }));
    await store.create(request("recent", { status: "failed", completedAt: "2024-01-01T23:59:59.000Z" }));
    expect(await store.purgeFinished({ maxAgeMs: 60_000, now })).toBe(1);
    expect(await store.get("odd")).toBeNull();
    expect(await store.get("recent")).not.toBeNull();
  });
});

describe("memory request store: by session and by user", () => {
  it("pages a session's requests newest first and forgets removed ones in its index", async () => {
    const store = newStore();
    for (const [id, at] of [
      ["a", "1"],
      ["b", "2"],
      ["c", "2"],
      ["d", "3"],
    ] as const) {
      await store.create(request(id, { createdAt: `2024-01-01T00:00:0${at}.000Z` }));
    }
    await store.create(request("other", { sessionId: "s2" }));
    expect((await store.listBySession("s1", { limit: 10 })).map((r) => r.id)).toEqual(["d", "c", "b", "a"]);
    const firstPage = await store.listBySession("s1", { limit: 2 });
    const last = firstPage[1]!;
    expect(
      (await store.listBySession("s1", { limit: 2, after: { createdAt: last.createdAt, id: last.id } })).map(
        (r) => r.id,
      ),
    ).toEqual(["b", "a"]);
    expect(await store.removeSession("s1")).toEqual({ requests: 4, events: 0 });
    expect(await store.listBySession("s1", { limit: 10 })).toEqual([]);
    expect((await store.listBySession("s2", { limit: 10 })).map((r) => r.id)).toEqual(["other"]);
    await expect(store.listBySession("s2", { limit: -1 })).rejects.toThrow(/limit/);
    await expect(store.listBySession("s2", { limit: 1, after: { id: "x" } as never })).rejects.toThrow(
      /createdAt/,
    );
  });

  it("removes a user's requests (narrowed to an org) with their events and active entries", async () => {
    const store = newStore();
    await store.create(request("mine", { orgId: "o1" }));
    await store.create(request("mine-other-org", { orgId: "o2" }));
    await store.create(request("theirs", { userId: "v", orgId: "o1" }));
    for (const id of ["mine", "mine-other-org", "theirs"]) {
      await store.appendEvent({ requestId: id, type: "t", at: "x", data: {} });
      await store.markActive({
        requestId: id,
        sessionId: "s1",
        flowId: "f",
        userId: "u",
        action: "a",
        startedAt: "t",
      });
    }
    expect(await store.removeByUser("u", { orgId: "o1" })).toBe(1);
    expect(await store.get("mine")).toBeNull();
    expect(await store.readEvents("mine")).toEqual([]);
    expect((await store.listActive({})).map((e) => e.requestId)).toEqual(["mine-other-org", "theirs"]);
    expect(await store.removeByUser("u")).toBe(1);
    expect(await store.removeByUser("u")).toBe(0);
    expect((await store.listBySession("s1", { limit: 9 })).map((r) => r.id)).toEqual(["theirs"]);
    expect(await store.readEvents("theirs")).toHaveLength(1);
  });
});
