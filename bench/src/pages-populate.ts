/**
 * Loads `n` items straight into a store through its own `putState` (no host, no HTTP), in random key order so
 * that no index can rely on keys arriving sorted: `items/00000000` … with state `{ title: "item i", n: i }`, as
 * `seededKey`/`seededState` name them. For Postgres, `postgres-populate.ts` loads the same rows by SQL instead.
 */
import type { FlowStores, ScopeAddress } from "@flowrt/core";
import { seededKey, seededState } from "./http-fixture.js";
import { pool } from "./measure.js";

/** 0 … n-1 in random order (Fisher–Yates), as a typed array: a million numbers without a million boxes. */
function shuffled(n: number): Int32Array {
  const order = new Int32Array(n);
  for (let i = 0; i < n; i++) order[i] = i;
  for (let i = n - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    const swap = order[i]!;
    order[i] = order[j]!;
    order[j] = swap;
  }
  return order;
}

/** Writes the items with at most `width` writes in flight; a refused write (the key exists) fails the load. */
export async function populateThroughStore(
  stores: FlowStores,
  address: ScopeAddress,
  n: number,
  width = 64,
): Promise<void> {
  await pool(shuffled(n), width, async (i) => {
    const result = await stores.resources.putState(address, seededKey(i), seededState(i), { type: "absent" });
    if (!result.ok) throw new Error(`populating ${seededKey(i)} was refused: the key exists already`);
  });
}
