import type { ScopeAddress } from "@flowrt/core";
import { SHARED_BUCKET } from "@flowrt/core";
import { expect } from "vitest";
import { defineCase } from "../case.js";
import { uid } from "../fixtures.js";

export const scopeStateCases = [
  defineCase(
    "scope-state/cas",
    "put is a compare-and-swap; versions start at 1 and grow by 1; conflicts are data",
    async (stores) => {
      const address: ScopeAddress = { scope: "user", scopeId: uid("user"), bucket: SHARED_BUCKET };
      expect(await stores.scopeState.get(address)).toBeNull();
      expect(await stores.scopeState.put(address, { n: 1 }, { type: "version", version: 1 })).toEqual({
        ok: false,
        current: null,
      });
      expect(await stores.scopeState.get(address)).toBeNull();

      expect(await stores.scopeState.put(address, { n: 1 }, { type: "absent" })).toEqual({
        ok: true,
        version: 1,
      });
      expect(await stores.scopeState.put(address, { n: 9 }, { type: "absent" })).toEqual({
        ok: false,
        current: { value: { n: 1 }, version: 1 },
      });
      expect(await stores.scopeState.put(address, { n: 2 }, { type: "version", version: 1 })).toEqual({
        ok: true,
        version: 2,
      });
      expect(await stores.scopeState.put(address, { n: 9 }, { type: "version", version: 1 })).toEqual({
        ok: false,
        current: { value: { n: 2 }, version: 2 },
      });
      expect(await stores.scopeState.get(address)).toEqual({ value: { n: 2 }, version: 2 });
      expect(await stores.scopeState.put(address, { n: 3 }, { type: "any" })).toEqual({
        ok: true,
        version: 3,
      });
      expect(await stores.scopeState.get(address)).toEqual({ value: { n: 3 }, version: 3 });

      const fresh: ScopeAddress = { scope: "org", scopeId: uid("org"), bucket: SHARED_BUCKET };
      expect(await stores.scopeState.put(fresh, { first: true }, { type: "any" })).toEqual({
        ok: true,
        version: 1,
      });
    },
  ),

  defineCase(
    "scope-state/copies",
    "scope state reads and writes never alias caller objects",
    async (stores) => {
      const address: ScopeAddress = { scope: "session", scopeId: uid("session"), bucket: SHARED_BUCKET };
      const value = { list: [1], nested: { a: "x" } };
      await stores.scopeState.put(address, value, { type: "absent" });
      value.list.push(2);
      value.nested.a = "changed";
      const read = await stores.scopeState.get(address);
      expect(read).toEqual({ value: { list: [1], nested: { a: "x" } }, version: 1 });
      (read!.value.list as number[]).push(3);
      const conflict = await stores.scopeState.put(address, {}, { type: "absent" });
      if (!conflict.ok) (conflict.current!.value.nested as { a: string }).a = "changed via conflict";
      expect(await stores.scopeState.get(address)).toEqual({
        value: { list: [1], nested: { a: "x" } },
        version: 1,
      });
    },
  ),

  defineCase(
    "scope-state/buckets",
    "user and org records are separate per scope, id and isolation bucket",
    async (stores) => {
      const id = uid("shared-id");
      const addresses: ScopeAddress[] = [
        { scope: "user", scopeId: id, bucket: SHARED_BUCKET },
        { scope: "user", scopeId: id, bucket: "flow-a" },
        { scope: "user", scopeId: id, bucket: "flow-b" },
        { scope: "org", scopeId: id, bucket: SHARED_BUCKET },
        { scope: "org", scopeId: id, bucket: "flow-a" },
        { scope: "session", scopeId: id, bucket: SHARED_BUCKET },
        { scope: "user", scopeId: uid("user"), bucket: SHARED_BUCKET },
      ];
      for (const [i, address] of addresses.entries()) {
        expect(await stores.scopeState.put(address, { i }, { type: "absent" })).toEqual({
          ok: true,
          version: 1,
        });
      }
      await stores.scopeState.put(addresses[0]!, { i: 0, again: true }, { type: "version", version: 1 });
      expect(await stores.scopeState.get(addresses[0]!)).toEqual({
        value: { i: 0, again: true },
        version: 2,
      });
      for (const [i, address] of addresses.entries()) {
        if (i === 0) continue;
        expect(await stores.scopeState.get(address)).toEqual({ value: { i }, version: 1 });
      }
    },
  ),

  defineCase(
    "scope-state/get-many",
    "getMany answers get for each address, in the order asked (null for a missing one)",
    async (stores) => {
      const session: ScopeAddress = { scope: "session", scopeId: uid("session"), bucket: SHARED_BUCKET };
      const user: ScopeAddress = { scope: "user", scopeId: uid("user"), bucket: SHARED_BUCKET };
      const ownBucket: ScopeAddress = { ...user, bucket: "flow-a" };
      const org: ScopeAddress = { scope: "org", scopeId: uid("org"), bucket: SHARED_BUCKET };
      const missing: ScopeAddress = { scope: "user", scopeId: uid("user"), bucket: SHARED_BUCKET };
      expect(await stores.scopeState.put(session, { s: 1 }, { type: "absent" })).toEqual({
        ok: true,
        version: 1,
      });
      expect(await stores.scopeState.put(user, { u: 1 }, { type: "absent" })).toEqual({
        ok: true,
        version: 1,
      });
      expect(await stores.scopeState.put(user, { u: 2 }, { type: "version", version: 1 })).toEqual({
        ok: true,
        version: 2,
      });
      expect(await stores.scopeState.put(ownBucket, { b: true }, { type: "absent" })).toEqual({
        ok: true,
        version: 1,
      });
      expect(await stores.scopeState.put(org, { o: [1] }, { type: "absent" })).toEqual({
        ok: true,
        version: 1,
      });

      const asked = [org, missing, user, session, ownBucket, user];
      const answers = await stores.scopeState.getMany(asked);
      expect(answers).toEqual([
        { value: { o: [1] }, version: 1 },
        null,
        { value: { u: 2 }, version: 2 },
        { value: { s: 1 }, version: 1 },
        { value: { b: true }, version: 1 },
        { value: { u: 2 }, version: 2 },
      ]);
      // The same answers get gives, one by one.
      for (const [i, address] of asked.entries())
        expect(answers[i]).toEqual(await stores.scopeState.get(address));
      expect(await stores.scopeState.getMany([])).toEqual([]);
      expect(await stores.scopeState.getMany([missing])).toEqual([null]);
      // Copies: changing an answer changes nothing stored.
      (answers[0]!.value.o as number[]).push(2);
      expect((await stores.scopeState.getMany([org]))[0]).toEqual({ value: { o: [1] }, version: 1 });
    },
  ),
] as const;
