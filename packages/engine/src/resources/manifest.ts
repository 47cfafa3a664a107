import { type AnyResourceDefinition, hasClientData, isListedInManifest, type ScopeKind } from "@flowrt/core";

export interface ResourceManifestEntry {
  /** The accessor name (the `:ref` of the resource endpoints). */
  ref: string;
  /** External collections are listed as collections. */
  kind: "single" | "collection";
  scope: ScopeKind;
  /** Collections only. */
  pattern?: string;
  /** Collections only; `0` when unset (and for external collections). */
  prefetchWindow?: number;
  hasClientData: boolean;
  client: {
    content: { read?: boolean; prefetch?: boolean; create?: boolean; update?: boolean; delete?: boolean };
    /** Collections only. */
    state?: { read?: boolean };
  };
}

export interface ResourceManifest {
  flowKind: string;
  resources: ResourceManifestEntry[];
}

type Flags = Partial<Record<string, boolean>>;

function declaredFlags(flags: Flags | undefined, names: readonly string[]): Record<string, boolean> {
  const out: Record<string, boolean> = {};
  for (const name of names) {
    const value = flags?.[name];
    if (typeof value === "boolean") out[name] = value;
  }
  return out;
}

/**
 * The static manifest of a flow kind: a resource is listed iff its client config opts into a permission
 * flag or a projection. Permission flags are reported as declared; no schemas, data or runtime state.
 */
export function buildManifest(
  flowKind: string,
  declarations: Readonly<Record<string, AnyResourceDefinition>>,
): ResourceManifest {
  const resources: ResourceManifestEntry[] = [];
  for (const [ref, def] of Object.entries(declarations)) {
    if (!isListedInManifest(def)) continue;
    const client = def.client as { content?: Flags; state?: Flags } | undefined;
    const collection = def.type !== "single";
    const entry: ResourceManifestEntry = {
      ref,
      kind: collection ? "collection" : "single",
      scope: def.scope,
      hasClientData: hasClientData(def),
      client: {
        content: declaredFlags(
          client?.content,
          collection ? ["read", "prefetch", "create", "update", "delete"] : ["read", "prefetch"],
        ),
      },
    };
    if (def.type !== "single") {
      entry.pattern = def.pattern;
      entry.prefetchWindow = def.type === "collection" ? def.prefetchWindow : 0;
      entry.client.state = declaredFlags(client?.state, ["read"]);
    }
    resources.push(entry);
  }
  return { flowKind, resources };
}
