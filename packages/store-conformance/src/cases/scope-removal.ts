import type { FlowStores, ScopeAddress } from "@flowrt/core";
import { SHARED_BUCKET } from "@flowrt/core";
import { expect } from "vitest";
import { defineCase } from "../case.js";
import { uid } from "../fixtures.js";

const BUCKETS = [SHARED_BUCKET, "flow-a", "flow-b"] as const;

/** State, two live keys (one deeper) with a content row, a tombstone and a content-only key. */
async function fill(stores: FlowStores, address: ScopeAddress): Promise<void> {
  await stores.scopeState.put(address, { bucket: address.bucket }, { type: "absent" });
  await stores.resources.putState(address, "items/a", { n: 1 }, { type: "absent" });
  await stores.resources.putState(address, "items/a/b", { n: 2 }, { type: "absent" });
  await stores.resources.putContent(address, "items/a", "body");
  await stores.resources.putState(address, "items/gone", { n: 3 }, { type: "absent" });
  await stores.resources.deleteState(address, "items/gone", { type: "any" });
  await stores.resources.putContent(address, "blob", "only content");
}

async function read(stores: FlowStores, address: ScopeAddress) {
  return {
    state: await stores.scopeState.get(address),
    list: await stores.resources.list(address),
    content: await stores.resources.getContent(address, "items/a"),
    blob: await stores.resources.getContent(address, "blob"),
  };
}

const EMPTY = { state: null, list: { items: [], total: 0 }, content: null, blob: null };

/** Removes one user's or org's scope and checks what went and what stayed. */
async function checkRemoval(stores: FlowStores, scope: "user" | "org"): Promise<void> {
  const id = uid(scope);
  const otherKind = scope === "user" ? "org" : "user";
  const target = BUCKETS.map((bucket): ScopeAddress => ({ scope, scopeId: id, bucket }));
  const untouched: ScopeAddress[] = BUCKETS.flatMap((bucket): ScopeAddress[] => [
    { scope, scopeId: uid(scope), bucket },
    // The same id under the other kinds of scope.
    { scope: otherKind, scopeId: id, bucket },
    { scope: "session", scopeId: id, bucket },
    // An id the target's is a prefix of.
    { scope, scopeId: `${id}-2`, bucket },
  ]);
  for (const address of [...target, ...untouched]) await fill(stores, address);
  const before = await Promise.all(untouched.map((address) => read(stores, address)));

  expect(await stores.scopeState.removeScope(scope, id)).toEqual({
    states: BUCKETS.length,
    resources: 3 * BUCKETS.length,
    contents: 2 * BUCKETS.length,
  });
  for (const address of target) {
    expect(await read(stores, address)).toEqual(EMPTY);
    expect(await stores.resources.count(address, "items/")).toBe(0);
    expect(await stores.resources.getState(address, "items/gone")).toBeNull();
  }
  expect(await Promise.all(untouched.map((address) => read(stores, address)))).toEqual(before);

  // Idempotent: nothing is left to count.
  expect(await stores.scopeState.removeScope(scope, id)).toEqual({ states: 0, resources: 0, contents: 0 });
  expect(await stores.scopeState.removeScope(scope, uid(scope))).toEqual({
    states: 0,
    resources: 0,
    contents: 0,
  });

  // The tombstones went with it: keys and state start again at version 1.
  expect(
    await stores.resources.putState(target[0]!, "items/gone", { again: true }, { type: "absent" }),
  ).toEqual({
    ok: true,
    version: 1,
  });
  expect(await stores.scopeState.put(target[1]!, { again: true }, { type: "absent" })).toEqual({
    ok: true,
    version: 1,
  });
}

export const scopeRemovalCases = [
  defineCase(
    "scope-removal/user",
    "removeScope(user) takes the user's state, resources (live and tombstoned) and content in every bucket, and nothing else; idempotent",
    (stores) => checkRemoval(stores, "user"),
  ),
  defineCase(
    "scope-removal/org",
    "removeScope(org) takes the org's state, resources (live and tombstoned) and content in every bucket, and nothing else; idempotent",
    (stores) => checkRemoval(stores, "org"),
  ),
] as const;
