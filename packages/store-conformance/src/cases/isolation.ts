import type { ScopeAddress } from "@flowrt/core";
import { SHARED_BUCKET } from "@flowrt/core";
import { expect } from "vitest";
import { defineCase } from "../case.js";
import { uid } from "../fixtures.js";

export const isolationCases = [
  defineCase(
    "isolation/resources",
    "scope kinds, scope ids, buckets and sessions never see each other's rows",
    async (stores) => {
      const id = uid("id");
      const addresses: ScopeAddress[] = [
        { scope: "session", scopeId: id, bucket: SHARED_BUCKET },
        { scope: "session", scopeId: uid("session"), bucket: SHARED_BUCKET },
        { scope: "user", scopeId: id, bucket: SHARED_BUCKET },
        { scope: "user", scopeId: id, bucket: "flow-a" },
        { scope: "org", scopeId: id, bucket: SHARED_BUCKET },
        { scope: "org", scopeId: uid("org"), bucket: SHARED_BUCKET },
        // These two collide in a store that joins scope id and bucket with "/" and no escaping.
        { scope: "user", scopeId: `${id}/flow`, bucket: "a" },
        { scope: "user", scopeId: id, bucket: "flow/a" },
      ];
      const r = stores.resources;
      for (const [i, address] of addresses.entries()) {
        expect(await r.putState(address, "shared/key", { i }, { type: "absent" })).toEqual({
          ok: true,
          version: 1,
        });
        await r.putContent(address, "shared/key", `body ${i}`);
        for (let j = 0; j <= i; j++) await r.putState(address, `own/${j}`, { j }, { type: "absent" });
      }
      for (const [i, address] of addresses.entries()) {
        expect(await r.getState(address, "shared/key")).toMatchObject({ state: { i }, version: 1 });
        expect(await r.getContent(address, "shared/key")).toBe(`body ${i}`);
        expect(await r.count(address, "own/")).toBe(i + 1);
        expect(await r.count(address)).toBe(i + 2);
        const page = await r.list(address, { prefix: "own/" });
        expect(page.total).toBe(i + 1);
        expect(page.items.map((item) => item.state)).toEqual(
          Array.from({ length: i + 1 }, (_, j) => ({ j })),
        );
      }

      await r.deleteState(addresses[0]!, "shared/key", { type: "any" });
      await r.touch(addresses[0]!, "own/0", 1);
      for (const address of addresses.slice(1)) {
        expect(await r.getState(address, "shared/key")).toMatchObject({ version: 1 });
        expect(await r.getContent(address, "shared/key")).not.toBeNull();
        expect((await r.getState(address, "own/0"))!.accessedAt).not.toBe(1);
      }
    },
  ),
] as const;
