import {
  type AnyResourceDefinition,
  clientPermissions,
  isListedInManifest,
  type JsonObject,
  type JsonValue,
  projectionOf,
  type ScopeKind,
} from "@flowrt/core";
import { CollectionRuntime } from "./collection.js";
import type { ResourceRuntimeContext } from "./context.js";
import { clientDataOf, projectScopeState } from "./events.js";
import { ExternalCollectionRuntime } from "./external-collection.js";
import { createResourceScope } from "./resource-scope.js";
import { SingleResourceRuntime } from "./single-resource.js";

export interface SnapshotSingleEntry {
  clientData?: JsonValue;
  content?: string | null;
}

export interface SnapshotCollectionEntry {
  count: number;
  prefetched?: { topic: string; clientData?: JsonValue }[];
}

/** An external collection: an anchor of unknown cardinality, never a count. */
export type SnapshotExternalEntry = Record<string, never>;

export type SnapshotEntry = SnapshotSingleEntry | SnapshotCollectionEntry | SnapshotExternalEntry;

/** The specification's Snapshot shape. */
export interface Snapshot {
  /** `clientData.<scope>`: each scope's projection; only scopes that declare `client`. */
  clientData: Partial<Record<ScopeKind, JsonObject>>;
  /** `resources.<scope>.<ref>`: only client-visible resources; a scope appears when it has one. */
  resources: Partial<Record<ScopeKind, Record<string, SnapshotEntry>>>;
}

/**
 * Builds the client snapshot of a session: scope projections and every resource the manifest lists (a client
 * config that opts into a permission flag or a projection; the others are invisible). Single: `clientData` only
 * with a projection, `content` only with `prefetch`. Collection: `count` always, `prefetched` (first
 * `prefetchWindow` items in key order) only when the window is positive, per-item `clientData` only with
 * `state.read`. External: an empty anchor. Resources of the org scope on a session without an org are left out.
 */
export async function buildSnapshot(
  ctx: ResourceRuntimeContext,
  declarations: Readonly<Record<string, AnyResourceDefinition>>,
): Promise<Snapshot> {
  // The scope holds every declaration (a visible resource's template may be a hidden one); entries are made
  // for the resources the manifest lists: a client config that grants nothing (`client: {}`, every flag false)
  // shows neither an entry nor, for a collection, its count.
  const scope = createResourceScope(ctx, declarations);
  const snapshot: Snapshot = { clientData: {}, resources: {} };

  const scopeKinds: ScopeKind[] = ["session", "user", "org"];
  await Promise.all(
    scopeKinds.map(async (kind) => {
      const client = ctx.flow[kind]?.client;
      if (client === undefined || (kind === "org" && ctx.session.orgId === undefined)) return;
      await scope.scopes[kind].load();
      snapshot.clientData[kind] = projectScopeState(ctx, kind, client, scope.scopes[kind].state);
    }),
  );

  const entries = await Promise.all(
    Object.keys(declarations)
      .filter((accessor) => isListedInManifest(declarations[accessor]!))
      .map(async (accessor): Promise<[AnyResourceDefinition, string, SnapshotEntry] | null> => {
        const runtime = scope.runtime(accessor);
        if (runtime === undefined) return null;
        if (runtime instanceof ExternalCollectionRuntime) return [runtime.def, accessor, {}];
        if (runtime instanceof SingleResourceRuntime)
          return [runtime.def, accessor, await singleEntry(ctx, accessor, runtime)];
        if (runtime instanceof CollectionRuntime)
          return [runtime.def, accessor, await collectionEntry(ctx, accessor, runtime)];
        return null;
      }),
  );
  for (const entry of entries) {
    if (entry === null) continue;
    const [def, accessor, value] = entry;
    const byScope = snapshot.resources[def.scope] ?? {};
    byScope[accessor] = value;
    snapshot.resources[def.scope] = byScope;
  }
  return snapshot;
}

async function singleEntry(
  ctx: ResourceRuntimeContext,
  accessor: string,
  runtime: SingleResourceRuntime,
): Promise<SnapshotSingleEntry> {
  const entry: SnapshotSingleEntry = {};
  await runtime.load();
  if (projectionOf(runtime.def) !== undefined) {
    const clientData = clientDataOf(ctx, runtime.def, accessor, runtime.handle.state, false);
    if (clientData !== undefined) entry.clientData = clientData;
  }
  if (clientPermissions(runtime.def).content.prefetch) entry.content = await runtime.handle.readContent();
  return entry;
}

async function collectionEntry(
  ctx: ResourceRuntimeContext,
  accessor: string,
  runtime: CollectionRuntime,
): Promise<SnapshotCollectionEntry> {
  const window = runtime.def.prefetchWindow;
  if (window <= 0) return { count: await runtime.countAll() };
  const { records, total } = await runtime.page(undefined, { offset: 0 }, window);
  const withData = clientPermissions(runtime.def).state.read;
  const prefetched = records.map((record) => {
    const item: { topic: string; clientData?: JsonValue } = { topic: record.key };
    if (withData) {
      const clientData = clientDataOf(ctx, runtime.def, accessor, record.state, true);
      if (clientData !== undefined) item.clientData = clientData;
    }
    return item;
  });
  return { count: total, prefetched };
}
