import { defineFlow, handler, type RequestRecord } from "@flowrt/core";
import { createMemoryStores } from "@flowrt/store-memory";
import { describe, expect, it } from "vitest";
import { createFlowHost } from "../host.js";
import { silentLogger } from "../logger.js";
import { durableFlow, durableRequest, durableSession } from "../testing/durable-flow.js";
import { headerCaller, settle } from "../testing/fixtures.js";

const delay = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const quick = handler({ name: "quick", execute: async () => "done" });

/** A stored session and a request of `durableFlow` as a host that died would have left them. */
async function leftBehind(
  stores: ReturnType<typeof createMemoryStores>,
  request: Partial<RequestRecord> & { id: string },
): Promise<void> {
  const now = new Date().toISOString();
  if (!(await stores.sessions.get("s1"))) await stores.sessions.create(durableSession(now));
  await stores.requests.create(
    durableRequest(
      {
        status: "running",
        startedAt: now,
        claim: { hostId: "dead-host", until: Date.now() - 1 },
        ...request,
      },
      now,
    ),
  );
  await stores.requests.markActive({
    requestId: request.id,
    sessionId: "s1",
    flowId: "durable",
    userId: "worker",
    action: "slow",
    startedAt: now,
  });
}

const activeIds = async (stores: ReturnType<typeof createMemoryStores>) =>
  (await stores.requests.listActive({})).map((entry) => entry.requestId);

describe("a closing host", () => {
  it("refuses a request whose acceptance it overtook, rather than leaving it stored and never started", async () => {
    let release!: () => void;
    const resolverHeld = new Promise<void>((resolve) => {
      release = resolve;
    });
    const flow = defineFlow({
      kind: "gated",
      authentication: {
        resolvePrincipal: async () => {
          await resolverHeld;
          return { userId: "u1" };
        },
      },
      actions: { quick },
    });
    const stores = createMemoryStores();
    const host = createFlowHost({ flows: [flow], stores, logger: silentLogger, recoveryIntervalMs: 0 });
    await host.start();
    const invoked = host
      .invoke("gated", "quick", headerCaller(), { input: null })
      .catch((error: unknown) => error);
    await delay(10);
    await host.close(); // while the action call waits on its resolver
    release();
    expect(await invoked).toMatchObject({ code: "host-not-started" });
    expect(await stores.requests.listByStatus(["queued", "running", "completed", "failed"])).toEqual([]);
    expect((await stores.sessions.list({})).total).toBe(0);
  });

  it("lets a request already being stored start, and waits for it to finish", async () => {
    const flow = defineFlow({
      kind: "plain",
      authentication: { requireUser: false, defaultUserId: "u1" },
      actions: { quick },
    });
    const stores = createMemoryStores();
    const create = stores.requests.create.bind(stores.requests);
    stores.requests.create = async (record) => {
      await delay(50); // a slow store: close() is called while this request is being stored
      return create(record);
    };
    const host = createFlowHost({ flows: [flow], stores, logger: silentLogger, recoveryIntervalMs: 0 });
    await host.start();
    const invoked = host.invoke("plain", "quick", headerCaller(), { input: null });
    await delay(10);
    await host.close();
    const { request } = await invoked;
    expect((await stores.requests.get(request.id))?.status).toBe("completed");
  });
});

describe("requests another party ended", () => {
  it("leave the active registry: an orphan marked failed at recovery, and an abort of a run on no live host", async () => {
    const stores = createMemoryStores();
    await leftBehind(stores, { id: "r-orphan" });
    await leftBehind(stores, {
      id: "r-durable",
      durable: true,
      claim: { hostId: "dead", until: Date.now() + 60_000 },
    });
    expect((await activeIds(stores)).sort()).toEqual(["r-durable", "r-orphan"]);

    const host = createFlowHost({
      flows: [durableFlow],
      stores,
      logger: silentLogger,
      recoveryIntervalMs: 0,
    });
    await host.start(); // its recovery pass marks the non-durable orphan failed
    expect((await stores.requests.get("r-orphan"))?.status).toBe("failed");
    expect(await activeIds(stores)).toEqual(["r-durable"]);

    // The durable one's claim is still live (its host is gone): an abort from here ends it, and clears it.
    await host.abortRequest("r-durable", headerCaller());
    expect((await stores.requests.get("r-durable"))?.status).toBe("aborted");
    expect(await activeIds(stores)).toEqual([]);
    await host.close();
  });
});

describe("recoveryIntervalMs: 0", () => {
  it("still resumes durable work whose claim was live at start, once the lease has passed", async () => {
    const stores = createMemoryStores();
    await leftBehind(stores, {
      id: "r-held",
      durable: true,
      claim: { hostId: "previous-process", until: Date.now() + 200 },
    });
    const host = createFlowHost({
      flows: [durableFlow],
      stores,
      logger: silentLogger,
      recoveryIntervalMs: 0,
      leaseMs: 300,
    });
    await host.start();
    expect((await stores.requests.get("r-held"))?.status).toBe("running"); // not yet lapsed at start
    const { record } = await settle(host, "r-held");
    expect(record).toMatchObject({ status: "completed", output: { label: "r-held", attempts: 1 } });
    await host.close();
  });
});
