import {
  defineFlow,
  defineResource,
  defineResourceCollection,
  type FlowStores,
  handler,
  type ScopeAddress,
} from "@flowrt/core";
import { createMemoryStores } from "@flowrt/store-memory";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import type { FlowHost } from "../host.js";
import { headerCaller, settle, storeFactories, withHost } from "../testing/fixtures.js";

/**
 * A run's writes once it is aborted: refused (`request-aborted`), nothing stored and nothing appended after
 * the terminal event, whether the abort came from the abort route or from a claim that lapsed.
 */

function deferred<T = void>() {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((done) => {
    resolve = done;
  });
  return { promise, resolve };
}

const items = defineResourceCollection({
  pattern: "items/*",
  scope: "session",
  stateSchema: z.object({ n: z.number().default(0) }),
});

const memo = defineResource({
  scope: "session",
  stateSchema: z.object({ n: z.number().default(0) }),
  client: { expose: ["n"], live: true },
});

/** The run under test: it waits on `gate` (never on `ctx.signal`) and then reports each write's outcome. */
let gate = deferred();
let entered = deferred();
let report = deferred<Record<string, string>>();

function reset() {
  gate = deferred();
  entered = deferred();
  report = deferred();
}

async function attempt(tried: Record<string, string>, name: string, write: () => Promise<unknown>) {
  try {
    await write();
    tried[name] = "stored";
  } catch (error) {
    tried[name] = (error as { code?: string }).code ?? String(error);
  }
}

const stubborn = handler({
  name: "stubborn",
  execute: async (_input, ctx) => {
    const early = await ctx.resources.items.create("early", {});
    entered.resolve();
    await gate.promise;
    const tried: Record<string, string> = {};
    await attempt(tried, "create", () => ctx.resources.items.create("late", {}));
    await attempt(tried, "getOrCreate", () => ctx.resources.items.getOrCreate("other"));
    await attempt(tried, "upsert", () => ctx.resources.items.upsert("early", { n: 2 }));
    await attempt(tried, "patchState", () => early.patchState({ n: 1 }));
    await attempt(tried, "getOrPatchState", () => early.getOrPatchState("extra", () => 1));
    await attempt(tried, "writeContent", () => early.writeContent("late body"));
    await attempt(tried, "delete", () => ctx.resources.items.delete("early"));
    await attempt(tried, "single", () => ctx.resources.memo.setState({ n: 3 }));
    await attempt(tried, "singleContent", () => ctx.resources.memo.writeContent("late memo"));
    await attempt(tried, "session", () => ctx.session.patchState({ count: 1 }));
    await attempt(tried, "user", () => ctx.user.incState({ visits: 1 }));
    await attempt(tried, "emit", () => ctx.emit({ type: "progress", data: {} }));
    report.resolve(tried);
    return { finished: true };
  },
});

const forger = handler({
  name: "forger",
  execute: async (_input, ctx) => {
    const error = await ctx.emit({ type: "request.completed", data: { output: "forged" } }).then(
      () => null,
      (e: unknown) => e as { code: string; details?: unknown },
    );
    await ctx.emit({ type: "progress", data: { step: 1 } });
    return { code: error?.code ?? null, details: (error?.details as object | undefined) ?? null };
  },
});

const flow = defineFlow({
  kind: "aftermath",
  authentication: { resolvePrincipal: () => ({ userId: "u1" }) },
  session: { stateSchema: z.object({ count: z.number().default(0) }), client: { expose: ["count"] } },
  user: { stateSchema: z.object({ visits: z.number().default(0) }), client: { expose: ["visits"] } },
  resources: { items, memo },
  actions: { stubborn: { block: stubborn }, forger: { block: forger } },
});

const REFUSED = {
  create: "request-aborted",
  getOrCreate: "request-aborted",
  upsert: "request-aborted",
  patchState: "request-aborted",
  getOrPatchState: "request-aborted",
  writeContent: "request-aborted",
  delete: "request-aborted",
  single: "request-aborted",
  singleContent: "request-aborted",
  session: "request-aborted",
  user: "request-aborted",
  emit: "request-aborted",
};

/** Everything the run could have stored after the abort is absent (the early item as it was created). */
async function expectNothingStoredAfter(stores: FlowStores, sessionId: string) {
  const address: ScopeAddress = { scope: "session", scopeId: sessionId, bucket: "shared" };
  expect(await stores.resources.getState(address, "items/late")).toBeNull();
  expect(await stores.resources.getState(address, "items/other")).toBeNull();
  expect((await stores.resources.getState(address, "items/early"))?.state).toEqual({ n: 0 });
  expect(await stores.resources.getContent(address, "items/early")).toBeNull();
  expect(await stores.resources.getState(address, "memo")).toBeNull();
  expect(await stores.resources.getContent(address, "memo")).toBeNull();
  expect(await stores.scopeState.get(address)).toBeNull();
  expect(await stores.scopeState.get({ scope: "user", scopeId: "u1", bucket: "shared" })).toBeNull();
}

/** Waits until the run has left this host's runner (its last step), and checks that it did. */
async function untilSettled(host: FlowHost, requestId: string) {
  for (let i = 0; i < 400 && host.requests.isRunningHere(requestId); i++)
    await new Promise((r) => setTimeout(r, 5));
  expect(host.requests.isRunningHere(requestId)).toBe(false);
}

describe.each(storeFactories)("a run after its abort ($name store)", (factory) => {
  it("a block that ignores ctx.signal writes nothing more; request.aborted stays the log's last event", async () => {
    reset();
    await withHost(
      { flows: [flow] },
      async (host, stores) => {
        const { request, session } = await host.invoke("aftermath", "stubborn", headerCaller(), {});
        await entered.promise;
        const aborted = await host.abortRequest(request.id, headerCaller());
        expect(aborted.status).toBe("aborted");
        gate.resolve();
        expect(await report.promise).toEqual(REFUSED);
        const { record, events } = await settle(host, request.id);
        await untilSettled(host, request.id);
        expect(record).toMatchObject({ status: "aborted", error: { code: "request-aborted" } });
        expect((await stores.requests.get(request.id))?.version).toBe(record.version);
        const log = await stores.requests.readEvents(request.id);
        expect(log).toEqual(events);
        expect(log.map((e) => e.type)).toEqual([
          "request.started",
          "block.started",
          "resource_change",
          "request.aborted",
        ]);
        await expectNothingStoredAfter(stores, session.id);
      },
      factory,
    );
  });
});

describe("a run whose claim lapsed (taken over by another host)", () => {
  it("is aborted at its next renewal: its later writes are refused and it appends nothing", async () => {
    reset();
    await withHost({ flows: [flow], leaseMs: 120 }, async (host, stores) => {
      const { request, session } = await host.invoke("aftermath", "stubborn", headerCaller(), {});
      await entered.promise;
      // Another host takes the request over, as after a lapse of this host's claim (retried if one of
      // this host's renewals lands between the read and the swap).
      let taken = false;
      for (let i = 0; i < 20 && !taken; i++) {
        const current = await stores.requests.get(request.id);
        const result = await stores.requests.update(request.id, current!.version, {
          claim: { hostId: "another-host", until: Date.now() + 60_000 },
        });
        taken = result.ok;
      }
      expect(taken).toBe(true);
      const before = await stores.requests.readEvents(request.id);
      await new Promise((r) => setTimeout(r, 200)); // more than a renewal period: the renewal fails
      gate.resolve();
      expect(await report.promise).toEqual(REFUSED);
      await untilSettled(host, request.id);
      expect(await stores.requests.readEvents(request.id)).toEqual(before);
      // The record is the other host's to finish: this one wrote no terminal status over it.
      expect(await stores.requests.get(request.id)).toMatchObject({
        status: "running",
        claim: { hostId: "another-host" },
      });
      await expectNothingStoredAfter(stores, session.id);
    });
  });
});

describe("an abort that lands while the run is being started", () => {
  // The claim starts the run in one write (its active entry and request.started): an abort landing before that
  // write returns comes after request.started, and nothing of the run follows it.
  it("is followed by no event of the run: the block never runs", async () => {
    const stores = createMemoryStores();
    let host: FlowHost | undefined;
    const update = stores.requests.update.bind(stores.requests);
    stores.requests.update = async (id, version, patch, effects) => {
      const result = await update(id, version, patch, effects);
      if (result.ok && effects?.active) await host!.abortRequest(id, headerCaller());
      return result;
    };
    reset();
    gate.resolve();
    await withHost(
      { flows: [flow] },
      async (started) => {
        host = started;
        const { request, session } = await started.invoke("aftermath", "stubborn", headerCaller(), {});
        const { record, events } = await settle(started, request.id);
        await untilSettled(started, request.id);
        expect(record.status).toBe("aborted");
        expect((await stores.requests.readEvents(request.id)).map((e) => e.type)).toEqual([
          "request.started",
          "request.aborted",
        ]);
        expect(events.map((e) => e.type)).toEqual(["request.started", "request.aborted"]);
        expect(await stores.requests.listActive({})).toEqual([]);
        // The block never ran: its first write (the item "early") is not there.
        const address: ScopeAddress = { scope: "session", scopeId: session.id, bucket: "shared" };
        expect(await stores.resources.getState(address, "items/early")).toBeNull();
      },
      {
        name: "memory with an abort inside markActive",
        create: async () => ({ stores, destroy: () => stores.close() }),
      },
    );
  });
});

describe("ctx.emit", () => {
  it("refuses a type the engine writes itself with reserved-event-type and appends nothing; the run goes on", async () => {
    await withHost({ flows: [flow] }, async (host) => {
      const { request } = await host.invoke("aftermath", "forger", headerCaller(), {});
      const { record, events } = await settle(host, request.id);
      expect(record).toMatchObject({
        status: "completed",
        output: { code: "reserved-event-type", details: { type: "request.completed" } },
      });
      expect(events.map((e) => e.type)).toEqual([
        "request.started",
        "block.started",
        "progress",
        "block.completed",
        "request.completed",
      ]);
      expect(events.at(-1)?.data).toEqual({ output: record.output });
    });
  });
});
