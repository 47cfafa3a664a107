import type { ScopeAddress } from "@flowrt/core";
import { DocTable } from "./doc-table.js";
import type { FsContext } from "./fs-context.js";
import type { KeyedMutex } from "./keyed-mutex.js";

/** What holds data for a session: the buckets of its scope state records and of its resources. */
export interface SessionScopeBuckets {
  scopeState: string[];
  resources: string[];
}

export type SessionScopeKind = keyof SessionScopeBuckets;

/**
 * Which buckets hold session-scope data, per session, under `session-scopes/`. Scope state files and
 * resource folders are named by the hash of their address, so without this a session's data could not
 * be found without reading every bucket; retention uses it to remove an ephemeral session's data.
 * A bucket is registered before its first write in this process is made (one read and at most one
 * write per session, kind and bucket), so data never exists unregistered; a registered bucket may hold
 * nothing (its write was refused, or the process died before it).
 */
export class SessionScopes {
  private readonly table: DocTable<SessionScopeBuckets>;
  /** `kind`, session id and bucket of the registrations made or confirmed by this process. */
  private readonly known = new Set<string>();

  constructor(
    private readonly ctx: FsContext,
    private readonly mutex: KeyedMutex,
  ) {
    this.table = new DocTable(ctx, "session-scopes");
  }

  /** Records that `address` (when it is a session's) holds `kind` data. */
  async register(address: ScopeAddress, kind: SessionScopeKind): Promise<void> {
    if (address.scope !== "session") return;
    const marker = JSON.stringify([kind, address.scopeId, address.bucket]);
    if (this.known.has(marker)) return;
    await this.ctx.ready();
    await this.mutex.run(`session-scopes:${address.scopeId}`, async () => {
      const current = await this.read(address.scopeId);
      if (!current[kind].includes(address.bucket)) {
        await this.table.write(address.scopeId, { ...current, [kind]: [...current[kind], address.bucket] });
      }
    });
    this.known.add(marker);
  }

  /** The buckets registered for `sessionId`. */
  async read(sessionId: string): Promise<SessionScopeBuckets> {
    await this.ctx.ready();
    return (await this.table.read(sessionId)) ?? { scopeState: [], resources: [] };
  }

  /** Forgets `sessionId`'s registrations (after its data is removed). */
  async remove(sessionId: string, buckets: SessionScopeBuckets): Promise<void> {
    await this.mutex.run(`session-scopes:${sessionId}`, () => this.table.remove(sessionId));
    for (const kind of ["scopeState", "resources"] as const)
      for (const bucket of buckets[kind]) this.known.delete(JSON.stringify([kind, sessionId, bucket]));
  }
}
