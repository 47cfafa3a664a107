import type { ScopeAddress, ScopeKind } from "@flowrt/core";
import { SHARED_BUCKET } from "@flowrt/core";
import { DocTable } from "./doc-table.js";
import type { FsContext } from "./fs-context.js";
import type { KeyedMutex } from "./keyed-mutex.js";

/** What holds data for one owner (a session, user or org): the buckets of its scope state records and resources. */
export interface ScopeBucketNames {
  scopeState: string[];
  resources: string[];
}

export type ScopeDataKind = keyof ScopeBucketNames;

/** The folder each kind of owner's registrations live in (`session-scopes/` predates the others). */
const FOLDERS: Record<ScopeKind, string> = {
  session: "session-scopes",
  user: "user-scopes",
  org: "org-scopes",
};

/**
 * Which buckets hold data, per owner (scope kind and id), under `session-scopes/`, `user-scopes/` and
 * `org-scopes/`. Scope state files and resource folders are named by the hash of their address, so without this
 * an owner's data could not be found without reading every bucket; removals (a session's, a user's or an org's,
 * and retention's of an ephemeral session) use it. A bucket is registered before its first write in this process
 * is made (one read and at most one write per owner, kind and bucket), so data never exists unregistered; a
 * registered bucket may hold nothing (its write was refused, or the process died before it).
 */
export class ScopeBuckets {
  private readonly tables: Record<ScopeKind, DocTable<ScopeBucketNames>>;
  /** The registrations made or confirmed by this process: per owner, its kinds and buckets. */
  private readonly known = new Map<string, Set<string>>();

  constructor(
    private readonly ctx: FsContext,
    private readonly mutex: KeyedMutex,
  ) {
    this.tables = {
      session: new DocTable(ctx, FOLDERS.session),
      user: new DocTable(ctx, FOLDERS.user),
      org: new DocTable(ctx, FOLDERS.org),
    };
  }

  /** Records that `address` holds `kind` data. */
  async register(address: ScopeAddress, kind: ScopeDataKind): Promise<void> {
    const owner = ownerOf(address.scope, address.scopeId);
    const marker = JSON.stringify([kind, address.bucket]);
    if (this.known.get(owner)?.has(marker)) return;
    await this.ctx.ready();
    await this.mutex.run(`scope-buckets:${owner}`, async () => {
      const current = await this.read(address.scope, address.scopeId);
      if (!current[kind].includes(address.bucket)) {
        await this.tables[address.scope].write(address.scopeId, {
          ...current,
          [kind]: [...current[kind], address.bucket],
        });
      }
      let markers = this.known.get(owner);
      if (markers === undefined) this.known.set(owner, (markers = new Set()));
      markers.add(marker);
    });
  }

  /** The buckets registered for an owner. */
  async read(scope: ScopeKind, scopeId: string): Promise<ScopeBucketNames> {
    await this.ctx.ready();
    return (await this.tables[scope].read(scopeId)) ?? { scopeState: [], resources: [] };
  }

  /**
   * The buckets to look in for an owner's data: those registered, and the shared bucket always (data written
   * there by a version of this store that kept no registrations is found too).
   */
  async lookIn(scope: ScopeKind, scopeId: string): Promise<ScopeBucketNames> {
    const registered = await this.read(scope, scopeId);
    const withShared = (buckets: string[]) =>
      buckets.includes(SHARED_BUCKET) ? buckets : [SHARED_BUCKET, ...buckets];
    return { scopeState: withShared(registered.scopeState), resources: withShared(registered.resources) };
  }

  /** Forgets an owner's registrations (after its data is removed). */
  async remove(scope: ScopeKind, scopeId: string): Promise<void> {
    const owner = ownerOf(scope, scopeId);
    await this.mutex.run(`scope-buckets:${owner}`, async () => {
      this.known.delete(owner);
      await this.tables[scope].remove(scopeId);
    });
  }
}

/** One string per owner (JSON escapes every code unit, so no two owners meet). */
const ownerOf = (scope: ScopeKind, scopeId: string) => JSON.stringify([scope, scopeId]);
