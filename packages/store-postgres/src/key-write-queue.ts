import type { CasResult, JsonObject, WriteCondition } from "@flowrt/core";

/** What this store last saw of a key: its version, and its state as JSON text (`null`: nothing live). */
export interface KnownVersion {
  version: number;
  json: string | null;
}

interface Slot {
  busy: boolean;
  waiters: Array<() => void>;
  known: KnownVersion | null;
}

/**
 * Lets one of a store's writes to a key reach the database at a time, and remembers what the last one
 * learned.
 *
 * The database serializes writes to a row anyway (its row lock), so this costs no parallelism. What it
 * buys: a compare-and-swap whose expected version is older than one this store has already seen
 * cannot win (versions only grow, tombstones included), so it loses here, at once, with the value the
 * store knows. Under contention (64 requests incrementing one counter) each winner would otherwise
 * have dozens of doomed statements queued behind it on the row lock; now only writes that can win
 * reach the row, and the next one is sent as soon as the last returns. Writes from other hosts are
 * still settled by the database: a local answer is only ever a loss that the database would give too.
 */
export class KeyWriteQueue {
  private readonly slots = new Map<string, Slot>();

  async run(
    id: string,
    condition: WriteCondition,
    write: () => Promise<CasResult<JsonObject>>,
    writtenJson: string | null,
  ): Promise<CasResult<JsonObject>> {
    let slot = this.slots.get(id);
    if (!slot) {
      slot = { busy: false, waiters: [], known: null };
      this.slots.set(id, slot);
    }
    for (;;) {
      const stale = staleLoss(condition, slot.known);
      if (stale) return stale;
      if (!slot.busy) break;
      await new Promise<void>((resolve) => slot.waiters.push(resolve));
    }
    slot.busy = true;
    try {
      const result = await write();
      slot.known = knownAfter(result, writtenJson);
      return result;
    } catch (error) {
      slot.known = null; // the write's fate is unknown
      throw error;
    } finally {
      slot.busy = false;
      const waiters = slot.waiters.splice(0);
      // Nobody waits and nobody holds the slot: forget the key.
      if (waiters.length === 0) this.slots.delete(id);
      for (const wake of waiters) wake();
    }
  }
}

/** The loss a stale `version` condition is bound to, or `null` when only the database can tell. */
function staleLoss(condition: WriteCondition, known: KnownVersion | null): CasResult<JsonObject> | null {
  if (condition.type !== "version" || known === null || known.version <= condition.version) return null;
  return {
    ok: false,
    current:
      known.json === null ? null : { value: JSON.parse(known.json) as JsonObject, version: known.version },
  };
}

/** What a finished write tells about its key. */
function knownAfter(result: CasResult<JsonObject>, writtenJson: string | null): KnownVersion | null {
  if (result.ok) return { version: result.version, json: writtenJson };
  return result.current
    ? { version: result.current.version, json: JSON.stringify(result.current.value) }
    : null;
}
