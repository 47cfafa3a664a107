/**
 * How the engine reads a validated `client` block: visibility, the clientData projection (client rules 1, 3
 * and 6), the manifest's `hasClientData` and listing rule, and permissions as plain booleans.
 */
import type { ClientConfigView } from "./client-config.js";
import type { AnyResourceDefinition } from "./types.js";

function viewOf(def: AnyResourceDefinition): ClientConfigView | undefined {
  return def.client as ClientConfigView | undefined;
}

/** Client rule 1: without a `client` block the resource is invisible to clients (snapshots, manifest, endpoints). */
export function hasClientConfig(def: AnyResourceDefinition): boolean {
  return def.client !== undefined;
}

/** Which of `expose`, `exclude`, `data` is declared, if any. */
export function projectionOf(def: AnyResourceDefinition): "expose" | "exclude" | "data" | undefined {
  const client = viewOf(def);
  if (client?.expose !== undefined) return "expose";
  if (client?.exclude !== undefined) return "exclude";
  if (client?.data !== undefined) return "data";
  return undefined;
}

/**
 * The manifest's `hasClientData`: a projection is declared, or (collections, external included) the identity
 * projection applies because `state.read` is true (client rule 3).
 */
export function hasClientData(def: AnyResourceDefinition): boolean {
  if (projectionOf(def) !== undefined) return true;
  return def.type !== "single" && viewOf(def)?.state?.read === true;
}

/**
 * The `clientData` of one state (client rules 3 and 6): `expose` picks the listed fields present in the state,
 * `exclude` copies every other field (so fields added later are published), `data` is called. Without a
 * projection a collection with `state.read` publishes the state itself (not copied) and a single resource
 * publishes nothing. `undefined` means "omit clientData". A projection applies whatever `state.read` says; the
 * engine decides where per-item clientData may appear.
 */
export function projectClientData(def: AnyResourceDefinition, state: Record<string, unknown>): unknown {
  const client = viewOf(def);
  if (client === undefined) return undefined;
  if (client.expose !== undefined) {
    const out: Record<string, unknown> = {};
    for (const field of client.expose) if (Object.hasOwn(state, field)) out[field] = state[field];
    return out;
  }
  if (client.exclude !== undefined) {
    const hidden = new Set(client.exclude);
    const out: Record<string, unknown> = {};
    for (const [field, value] of Object.entries(state)) if (!hidden.has(field)) out[field] = value;
    return out;
  }
  if (client.data !== undefined) return client.data(state);
  return def.type !== "single" && client.state?.read === true ? state : undefined;
}

/** Whether the manifest lists the resource: iff its client config opts into any permission flag or a projection. */
export function isListedInManifest(def: AnyResourceDefinition): boolean {
  const client = viewOf(def);
  if (client === undefined) return false;
  if (projectionOf(def) !== undefined) return true;
  const flags = [...Object.values(client.content ?? {}), ...Object.values(client.state ?? {})];
  return flags.some((flag) => flag === true);
}

export interface ClientPermissions {
  content: { read: boolean; prefetch: boolean; create: boolean; update: boolean; delete: boolean };
  state: { read: boolean };
  live: boolean;
}

/** A validated client view is frozen, so its permissions are worked out once (and frozen too). */
const permissionsByView = new WeakMap<object, ClientPermissions>();

const NO_PERMISSIONS: ClientPermissions = deepFreeze(permissionsOf(undefined));

function permissionsOf(client: ClientConfigView | undefined): ClientPermissions {
  const c = client?.content ?? {};
  return {
    content: {
      read: c.read === true,
      prefetch: c.prefetch === true,
      create: c.create === true,
      update: c.update === true,
      delete: c.delete === true,
    },
    state: { read: client?.state?.read === true },
    live: client?.live === true,
  };
}

function deepFreeze(permissions: ClientPermissions): ClientPermissions {
  Object.freeze(permissions.content);
  Object.freeze(permissions.state);
  return Object.freeze(permissions);
}

/** Every client permission as a plain boolean (`false` when undeclared or without client config). Read-only. */
export function clientPermissions(def: AnyResourceDefinition): ClientPermissions {
  const client = viewOf(def);
  if (client === undefined) return NO_PERMISSIONS;
  if (!Object.isFrozen(client)) return permissionsOf(client);
  let permissions = permissionsByView.get(client);
  if (permissions === undefined) {
    permissions = deepFreeze(permissionsOf(client));
    permissionsByView.set(client, permissions);
  }
  return permissions;
}
