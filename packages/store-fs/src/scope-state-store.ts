import type {
  CasResult,
  Fence,
  JsonObject,
  ScopeAddress,
  ScopeKind,
  ScopeRemoval,
  ScopeStateStore,
  Versioned,
  WriteCondition,
} from "@flowrt/core";
import { FlowError } from "@flowrt/core";
import { DocTable } from "./internal/doc-table.js";
import type { FenceGate } from "./internal/fence-gate.js";
import type { FsContext } from "./internal/fs-context.js";
import type { KeyedMutex } from "./internal/keyed-mutex.js";
import { mapLimit } from "./internal/map-limit.js";
import { addressId } from "./internal/naming.js";
import type { ScopeBuckets } from "./internal/scope-buckets.js";
import {
  assertAddress,
  assertCondition,
  assertFence,
  assertJsonObject,
  assertString,
  conditionHolds,
  jsonCopy,
} from "./internal/validate.js";
import type { FsResourceStore } from "./resource-store.js";

/**
 * Session, user and org state records, one file per (scope, scopeId, bucket) under `scope-state/`. Removing an
 * owner's scope takes its resources too (through `resources`), bucket by bucket as `scopeBuckets` lists them.
 */
export class FsScopeStateStore implements ScopeStateStore {
  private readonly table: DocTable<Versioned<JsonObject>>;

  constructor(
    private readonly ctx: FsContext,
    private readonly mutex: KeyedMutex,
    private readonly scopeBuckets: ScopeBuckets,
    private readonly fences: FenceGate,
    private readonly resources: FsResourceStore,
  ) {
    this.table = new DocTable(ctx, "scope-state");
  }

  async get(address: ScopeAddress): Promise<Versioned<JsonObject> | null> {
    assertAddress(address);
    await this.ctx.ready();
    return this.table.read(addressId(address));
  }

  async getMany(addresses: readonly ScopeAddress[]): Promise<(Versioned<JsonObject> | null)[]> {
    if (!Array.isArray(addresses))
      throw new FlowError("invalid-request", "getMany takes an array of addresses.");
    // Every address checked before any file is read.
    for (const address of addresses) assertAddress(address);
    await this.ctx.ready();
    return mapLimit(addresses, 32, (address) => this.table.read(addressId(address)));
  }

  async put(
    address: ScopeAddress,
    value: JsonObject,
    condition: WriteCondition,
    fence?: Fence,
  ): Promise<CasResult<JsonObject>> {
    assertAddress(address);
    assertJsonObject(value, "value");
    assertCondition(condition);
    assertFence(fence);
    const copy = jsonCopy(value, "value");
    await this.ctx.ready();
    await this.scopeBuckets.register(address, "scopeState");
    const id = addressId(address);
    return this.mutex.run(`scope-state:${id}`, () =>
      this.fences.write(fence, async (): Promise<CasResult<JsonObject>> => {
        const current = await this.table.read(id);
        if (!conditionHolds(condition, current?.version ?? null)) return { ok: false, current };
        const version = (current?.version ?? 0) + 1;
        await this.table.write(id, { value: copy, version });
        return { ok: true, version };
      }),
    );
  }

  async removeScope(scope: "user" | "org", scopeId: string): Promise<ScopeRemoval> {
    if (scope !== "user" && scope !== "org") {
      throw new FlowError(
        "invalid-request",
        `removeScope takes the scope "user" or "org" (got ${JSON.stringify(scope)}); a session goes with sessions.remove.`,
      );
    }
    assertString(scopeId, "scopeId");
    await this.ctx.ready();
    return this.removeOwner(scope, scopeId);
  }

  /**
   * Removes an owner's state records and resource buckets, every one its registrations list (and the shared
   * bucket), then the registrations. Each file or bucket goes in one atomic step, so a removal cut short leaves
   * the registrations and a second call finishes it; counts are of what this call removed.
   */
  async removeOwner(scope: ScopeKind, scopeId: string): Promise<ScopeRemoval> {
    const buckets = await this.scopeBuckets.lookIn(scope, scopeId);
    const removed: ScopeRemoval = { states: 0, resources: 0, contents: 0 };
    for (const bucket of buckets.scopeState) {
      const id = addressId({ scope, scopeId, bucket });
      if (await this.mutex.run(`scope-state:${id}`, () => this.table.remove(id))) removed.states++;
    }
    for (const bucket of buckets.resources) {
      const counts = await this.resources.dropBucket({ scope, scopeId, bucket });
      removed.resources += counts.resources;
      removed.contents += counts.contents;
    }
    await this.scopeBuckets.remove(scope, scopeId);
    return removed;
  }
}
