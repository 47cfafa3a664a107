import type { FlowStores, ScopeAddress } from "@flowrt/core";
import { expect } from "vitest";
import { defineCase } from "../case.js";
import { requestRecord, sessionAddress, sessionRecord } from "../fixtures.js";

/** The engine's guarded-write loop: read, write under the read version, retry on a lost race. */
async function increment(stores: FlowStores, address: ScopeAddress, key: string): Promise<number> {
  for (let attempt = 1; ; attempt++) {
    const current = await stores.resources.getState(address, key);
    const next = { count: ((current?.state.count as number | undefined) ?? 0) + 1 };
    const result = await stores.resources.putState(
      address,
      key,
      next,
      current ? { type: "version", version: current.version } : { type: "absent" },
    );
    if (result.ok) return attempt;
    if (attempt > 1000) throw new Error("increment never won its compare-and-swap");
  }
}

export const concurrencyCases = [
  defineCase(
    "concurrency/cas-increments",
    "50 concurrent increments through the compare-and-swap loop all land",
    async (stores) => {
      const address = sessionAddress();
      await Promise.all(Array.from({ length: 50 }, () => increment(stores, address, "counter")));
      expect(await stores.resources.getState(address, "counter")).toMatchObject({
        state: { count: 50 },
        version: 50,
      });
    },
  ),

  defineCase(
    "concurrency/create-only-race",
    "of two concurrent create-only writes of one key exactly one wins",
    async (stores) => {
      const address = sessionAddress();
      const results = await Promise.all([
        stores.resources.putState(address, "k", { who: "a" }, { type: "absent" }),
        stores.resources.putState(address, "k", { who: "b" }, { type: "absent" }),
      ]);
      expect(results.filter((result) => result.ok)).toEqual([{ ok: true, version: 1 }]);
      const loser = results.find((result) => !result.ok);
      const stored = await stores.resources.getState(address, "k");
      expect(loser).toEqual({ ok: false, current: { value: stored!.state, version: 1 } });

      const scope: ScopeAddress = { ...address, scope: "user" };
      const scopeResults = await Promise.all([
        stores.scopeState.put(scope, { who: "a" }, { type: "absent" }),
        stores.scopeState.put(scope, { who: "b" }, { type: "absent" }),
      ]);
      expect(scopeResults.filter((result) => result.ok)).toHaveLength(1);
      const scopeLoser = scopeResults.find((result) => !result.ok);
      const scopeStored = await stores.scopeState.get(scope);
      expect(scopeStored?.version).toBe(1);
      expect(scopeLoser).toEqual({ ok: false, current: scopeStored });
    },
  ),

  defineCase(
    "concurrency/record-races",
    "concurrent creates of one session or request id and concurrent request updates: one wins",
    async (stores) => {
      const session = sessionRecord();
      const created = await Promise.all([
        stores.sessions.create(session),
        stores.sessions.create({ ...session, title: "other" }),
      ]);
      expect(created.filter(Boolean)).toHaveLength(1);

      const request = requestRecord();
      const requestCreated = await Promise.all([
        stores.requests.create(request),
        stores.requests.create({ ...request, action: "other" }),
      ]);
      expect(requestCreated.filter(Boolean)).toHaveLength(1);

      const updates = await Promise.all([
        stores.requests.update(request.id, 1, { status: "running" }),
        stores.requests.update(request.id, 1, { status: "aborted" }),
      ]);
      expect(updates.filter((result) => result.ok)).toEqual([{ ok: true, version: 2 }]);
      expect((await stores.requests.get(request.id))?.version).toBe(2);
    },
  ),
] as const;
