import type {
  CasResult,
  Fence,
  JsonObject,
  ScopeAddress,
  ScopeStateStore,
  Versioned,
  WriteCondition,
} from "@flowrt/core";
import { DocTable } from "./internal/doc-table.js";
import type { FenceGate } from "./internal/fence-gate.js";
import type { FsContext } from "./internal/fs-context.js";
import type { KeyedMutex } from "./internal/keyed-mutex.js";
import { addressId } from "./internal/naming.js";
import type { SessionScopes } from "./internal/session-scopes.js";
import {
  assertAddress,
  assertCondition,
  assertFence,
  assertJsonObject,
  conditionHolds,
  jsonCopy,
} from "./internal/validate.js";

/** Session, user and org state records, one file per (scope, scopeId, bucket) under `scope-state/`. */
export class FsScopeStateStore implements ScopeStateStore {
  private readonly table: DocTable<Versioned<JsonObject>>;

  constructor(
    private readonly ctx: FsContext,
    private readonly mutex: KeyedMutex,
    private readonly sessionScopes: SessionScopes,
    private readonly fences: FenceGate,
  ) {
    this.table = new DocTable(ctx, "scope-state");
  }

  async get(address: ScopeAddress): Promise<Versioned<JsonObject> | null> {
    assertAddress(address);
    await this.ctx.ready();
    return this.table.read(addressId(address));
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
    await this.sessionScopes.register(address, "scopeState");
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

  /** Removes the record at `address` (a retired session's). */
  async drop(address: ScopeAddress): Promise<void> {
    const id = addressId(address);
    await this.mutex.run(`scope-state:${id}`, () => this.table.remove(id));
  }
}
