import { hasErrorCode, type RequestRecord } from "@flowrt/core";
import { createMemoryStores } from "@flowrt/store-memory";
import { describe, expect, it } from "vitest";
import { isLegalTransition, RequestLifecycle } from "./lifecycle.js";

function queued(id: string): RequestRecord {
  return {
    id,
    sessionId: "s1",
    flowId: "f",
    flowKind: "f",
    action: "act",
    userId: "ada",
    status: "queued",
    input: null,
    metadata: {},
    durable: true,
    version: 1,
    createdAt: new Date().toISOString(),
  };
}

async function setup(id = "r1") {
  const stores = createMemoryStores();
  await stores.requests.create(queued(id));
  const a = new RequestLifecycle(stores, "host-a", 1_000);
  const b = new RequestLifecycle(stores, "host-b", 1_000);
  const events = async () => (await stores.requests.readEvents(id)).map((e) => e.type);
  return { stores, a, b, events, get: async () => (await stores.requests.get(id))! };
}

describe("the request lifecycle", () => {
  it("allows only queued → running → completed | failed | aborted (and a take-over running → running)", () => {
    expect(isLegalTransition("queued", "running")).toBe(true);
    expect(isLegalTransition("running", "running")).toBe(true);
    expect(isLegalTransition("running", "completed")).toBe(true);
    expect(isLegalTransition("queued", "completed")).toBe(false);
    for (const terminal of ["completed", "failed", "aborted"] as const)
      for (const to of ["queued", "running", "completed", "failed", "aborted"] as const)
        expect(isLegalTransition(terminal, to)).toBe(false);
  });

  it("claims once: a second host's claim of the same queued record loses and writes nothing", async () => {
    const { a, b, get } = await setup();
    const record = await get();
    const [first, second] = await Promise.all([a.claim(record, false), b.claim(record, false)]);
    expect([first, second].filter((c) => c !== null)).toHaveLength(1);
    const stored = await get();
    expect(stored.status).toBe("running");
    expect(stored.version).toBe(2);
  });

  it("a claim that starts its run enters the active registry and logs request.started in the same write; the losing claim writes neither", async () => {
    const { stores, a, b, get, events } = await setup();
    const record = await get();
    const [first, second] = await Promise.all([a.claim(record, true), b.claim(record, true)]);
    const won = [first, second].filter((c) => c !== null);
    expect(won).toHaveLength(1);
    expect(await events()).toEqual(["request.started"]);
    const active = await stores.requests.listActive({});
    expect(active).toEqual([
      {
        requestId: "r1",
        sessionId: "s1",
        flowId: "f",
        userId: "ada",
        action: "act",
        startedAt: won[0]!.startedAt,
      },
    ]);
    expect((await get()).version).toBe(2);
  });

  it("a run's end carries its deferred events before the terminal one and leaves the active registry, in one write", async () => {
    const { stores, a, get, events } = await setup();
    const claimed = (await a.claim(await get(), true))!;
    const at = new Date().toISOString();
    const deferred = [
      { requestId: "r1", type: "block.started", at, data: { block: "b" } },
      { requestId: "r1", type: "block.completed", at, data: { block: "b" } },
    ];
    expect(await a.finish(claimed.id, claimed.version, { status: "completed", output: 1 }, deferred)).toBe(
      true,
    );
    expect(await events()).toEqual([
      "request.started",
      "block.started",
      "block.completed",
      "request.completed",
    ]);
    expect(await stores.requests.listActive({})).toEqual([]);
    expect((await get()).status).toBe("completed");
  });

  it("a run's end that lost to an abort writes none of its events and leaves the registry to its caller", async () => {
    const { stores, a, b, get, events } = await setup();
    const claimed = (await a.claim(await get(), true))!;
    await b.abort(claimed.id, () => {});
    const deferred = [{ requestId: "r1", type: "block.completed", at: new Date().toISOString(), data: {} }];
    expect(await a.finish(claimed.id, claimed.version, { status: "completed", output: 1 }, deferred)).toBe(
      false,
    );
    expect(await events()).toEqual(["request.started", "request.aborted"]);
    expect((await stores.requests.listActive({})).map((entry) => entry.requestId)).toEqual(["r1"]);
  });

  it("finishes a claimed run once, with one terminal event", async () => {
    const { a, get, events } = await setup();
    const claimed = (await a.claim(await get(), false))!;
    expect(await a.finish(claimed.id, claimed.version, { status: "completed", output: { ok: true } })).toBe(
      true,
    );
    const stored = await get();
    expect(stored.status).toBe("completed");
    expect(stored.output).toEqual({ ok: true });
    expect(stored.claim).toBeUndefined();
    expect(await events()).toEqual(["request.completed"]);
  });

  it("does not finish a request another host aborted: the abort's status and single terminal event stand", async () => {
    const { a, b, get, events } = await setup();
    const claimed = (await a.claim(await get(), false))!;
    const cleared: string[] = [];
    await b.abort(claimed.id, () => {
      cleared.push(claimed.id);
    });
    expect(cleared).toEqual([claimed.id]);
    expect(await a.finish(claimed.id, claimed.version, { status: "completed", output: 1 })).toBe(false);
    expect((await get()).status).toBe("aborted");
    expect(await events()).toEqual(["request.aborted"]);
  });

  it("does not finish a request another host took over after the lease lapsed", async () => {
    const { a, b, get, events } = await setup();
    const claimedByA = (await a.claim(await get(), false))!;
    // A's claim lapses (its until is in the past): B takes it over.
    const lapsed = { ...(await get()), claim: { hostId: "host-a", until: Date.now() - 1 } };
    const takenOver = await b.claim(lapsed, false);
    expect(takenOver).not.toBeNull();
    expect(await a.finish(claimedByA.id, claimedByA.version, { status: "completed", output: 1 })).toBe(false);
    const stored = await get();
    expect(stored.status).toBe("running");
    expect(stored.claim?.hostId).toBe("host-b");
    expect(await events()).toEqual([]);
  });

  it("refuses to abort a finished request (request-finished) and writes nothing", async () => {
    const { a, get, events } = await setup();
    const claimed = (await a.claim(await get(), false))!;
    await a.finish(claimed.id, claimed.version, { status: "failed", error: { code: "x", message: "y" } });
    const before = await get();
    const refusal = await a.abort(claimed.id, () => {}).catch((error: unknown) => error);
    expect(hasErrorCode(refusal, "request-finished")).toBe(true);
    expect(await get()).toEqual(before);
    expect(await events()).toEqual(["request.failed"]);
  });

  it("renews only the claim it holds: a stale version renews nothing", async () => {
    const { a, get } = await setup();
    const claimed = (await a.claim(await get(), false))!;
    const renewed = await a.renew(claimed.id, claimed.version);
    expect(renewed).toBe(claimed.version + 1);
    expect(await a.renew(claimed.id, claimed.version)).toBeNull();
    expect((await get()).version).toBe(claimed.version + 1);
  });
});
