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
    const [first, second] = await Promise.all([a.claim(record), b.claim(record)]);
    expect([first, second].filter((c) => c !== null)).toHaveLength(1);
    const stored = await get();
    expect(stored.status).toBe("running");
    expect(stored.version).toBe(2);
  });

  it("finishes a claimed run once, with one terminal event", async () => {
    const { a, get, events } = await setup();
    const claimed = (await a.claim(await get()))!;
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
    const claimed = (await a.claim(await get()))!;
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
    const claimedByA = (await a.claim(await get()))!;
    // A's claim lapses (its until is in the past): B takes it over.
    const lapsed = { ...(await get()), claim: { hostId: "host-a", until: Date.now() - 1 } };
    const takenOver = await b.claim(lapsed);
    expect(takenOver).not.toBeNull();
    expect(await a.finish(claimedByA.id, claimedByA.version, { status: "completed", output: 1 })).toBe(false);
    const stored = await get();
    expect(stored.status).toBe("running");
    expect(stored.claim?.hostId).toBe("host-b");
    expect(await events()).toEqual([]);
  });

  it("refuses to abort a finished request (request-finished) and writes nothing", async () => {
    const { a, get, events } = await setup();
    const claimed = (await a.claim(await get()))!;
    await a.finish(claimed.id, claimed.version, { status: "failed", error: { code: "x", message: "y" } });
    const before = await get();
    const refusal = await a.abort(claimed.id, () => {}).catch((error: unknown) => error);
    expect(hasErrorCode(refusal, "request-finished")).toBe(true);
    expect(await get()).toEqual(before);
    expect(await events()).toEqual(["request.failed"]);
  });

  it("renews only the claim it holds: a stale version renews nothing", async () => {
    const { a, get } = await setup();
    const claimed = (await a.claim(await get()))!;
    const renewed = await a.renew(claimed.id, claimed.version);
    expect(renewed).toBe(claimed.version + 1);
    expect(await a.renew(claimed.id, claimed.version)).toBeNull();
    expect((await get()).version).toBe(claimed.version + 1);
  });
});
