import type { RequestEvent, RequestRecord, SessionRecord } from "@flowrt/core";
import { describe, expect, it } from "vitest";
import { createMemoryStores } from "./create-memory-stores.js";
import { createMemoryRequestStore } from "./memory-request-store.js";

function request(id: string, overrides: Partial<RequestRecord> = {}): RequestRecord {
  return {
    id,
    sessionId: `s-${id}`,
    flowId: "f",
    flowKind: "f",
    action: "a",
    userId: "u",
    status: "queued",
    input: {},
    metadata: { origin: "action" },
    durable: false,
    version: 1,
    createdAt: "2024-01-01T00:00:00.000Z",
    ...overrides,
  };
}

function session(id: string, overrides: Partial<SessionRecord> = {}): SessionRecord {
  return {
    id,
    flowId: "f",
    flowKind: "f",
    userId: "u",
    rootSessionId: id,
    metadata: {},
    createdAt: "2024-01-01T00:00:00.000Z",
    ...overrides,
  };
}

const event = (requestId: string, type: string, data: Record<string, unknown> = {}) => ({
  requestId,
  type,
  at: "2024-01-01T00:00:01.000Z",
  data: data as RequestEvent["data"],
});

const entry = (requestId: string) => ({
  requestId,
  sessionId: `s-${requestId}`,
  flowId: "f",
  userId: "u",
  action: "a",
  startedAt: "2024-01-01T00:00:01.000Z",
});

describe("memory request store: an update's effects", () => {
  it("writes nothing, not even the patch, when an effect is bad", async () => {
    const { requests } = createMemoryStores();
    await requests.create(request("r"));
    const bad = [
      { events: [event("r", "ok"), event("r", "bad", { n: 10n })] },
      { events: [event("r", "ok"), event("other", "foreign")] },
      { active: { ...entry("r"), userId: 7 as unknown as string } },
      { active: entry("other") },
      { events: "nope" as unknown as [] },
    ];
    for (const effects of bad) {
      await expect(requests.update("r", 1, { status: "running" }, effects)).rejects.toThrow(TypeError);
    }
    expect(await requests.get("r")).toEqual(request("r"));
    expect(await requests.readEvents("r")).toEqual([]);
    expect(await requests.listActive({})).toEqual([]);
  });

  it("stores every event before any listener hears of one, and a listener's own append comes after them", async () => {
    const { requests } = createMemoryStores();
    await requests.create(request("r"));
    const heard: number[] = [];
    let storedWhenFirstHeard: Promise<RequestEvent[]> | undefined;
    requests.subscribe("r", (e) => {
      // Read at once (the read's body runs before its first await): what is stored at this moment.
      storedWhenFirstHeard ??= requests.readEvents("r");
      heard.push(e.seq);
      if (e.type === "a") void requests.appendEvent(event("r", "from-listener"));
    });
    const seen: number[] = [];
    requests.subscribe("r", (e) => seen.push(e.seq));
    await requests.update("r", 1, {}, { events: [event("r", "a"), event("r", "b"), event("r", "c")] });
    await Promise.resolve();
    expect((await storedWhenFirstHeard)?.map((e) => e.type)).toEqual(["a", "b", "c"]);
    expect(heard).toEqual([1, 2, 3, 4]);
    expect(seen).toEqual([1, 2, 3, 4]);
    expect((await requests.readEvents("r")).map((e) => e.type)).toEqual(["a", "b", "c", "from-listener"]);
  });

  it("tells listeners of the events once the patch is stored", async () => {
    const { requests } = createMemoryStores();
    await requests.create(request("r"));
    let statusWhenHeard: string | undefined;
    requests.subscribe("r", () => {
      void requests.get("r").then((r) => {
        statusWhenHeard ??= r?.status;
      });
    });
    await requests.update("r", 1, { status: "completed" }, { events: [event("r", "request.completed")] });
    await new Promise((resolve) => setImmediate(resolve));
    expect(statusWhenHeard).toBe("completed");
  });
});

describe("memory request store: create with the request's own session", () => {
  it("counts the request for the session, so an ephemeral one is retired with it", async () => {
    const { requests, sessions } = createMemoryStores();
    const own = session("s-r", { metadata: { ephemeral: true } });
    expect(await requests.create(request("r", { status: "completed" }), { session: own })).toBe(true);
    expect(await sessions.get("s-r")).toEqual(own);
    expect(await requests.purgeFinished({ maxCount: 0 })).toBe(1);
    expect(await sessions.get("s-r")).toBeNull();
  });

  it("refuses a session that is not the request's, and a bad session record, storing nothing", async () => {
    const { requests, sessions } = createMemoryStores();
    await expect(requests.create(request("r"), { session: session("elsewhere") })).rejects.toThrow(
      /not in the session/,
    );
    await expect(
      requests.create(request("r"), { session: { ...session("s-r"), userId: 1 as unknown as string } }),
    ).rejects.toThrow(TypeError);
    expect(await requests.get("r")).toBeNull();
    expect(await sessions.get("s-r")).toBeNull();
    expect(await sessions.get("elsewhere")).toBeNull();
  });

  it("needs a session store to create a session in", async () => {
    const alone = createMemoryRequestStore(() => {});
    await expect(alone.create(request("r"), { session: session("s-r") })).rejects.toThrow(
      /without a session store/,
    );
    expect(await alone.get("r")).toBeNull();
  });
});
