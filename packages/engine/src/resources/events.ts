import {
  type AnyResourceDefinition,
  clientPermissions,
  type JsonObject,
  type JsonValue,
  projectClientData,
  projectionOf,
  type ResourceIdentity,
} from "@flowrt/core";
import type {
  ResourceChangeKind,
  ResourceChangeNotice,
  ResourceRuntimeContext,
  ScopeClientView,
} from "./context.js";

/**
 * A projection computed by application code may return anything; what reaches the stream must be JSON.
 * `undefined` (or a value JSON cannot carry) means "no clientData".
 */
export function toJsonValue(value: unknown): JsonValue | undefined {
  if (value === undefined) return undefined;
  try {
    const text = JSON.stringify(value);
    return text === undefined ? undefined : (JSON.parse(text) as JsonValue);
  } catch {
    return undefined;
  }
}

/**
 * A resource's clientData (`undefined`: none). A `data` projection is application code: one that throws is
 * logged and gives no clientData, as a scope's throwing `derived` is left out, so one bad item never turns
 * a list, an item read, a snapshot or a committed write into an error. `stored` says the state is a record
 * read from the store for this call alone: JSON already and held by nothing else, so `expose`, `exclude`
 * and the identity projection are used as they are and only a `data` result is made JSON; any other state
 * (a handle's) is made JSON whatever the projection.
 */
export function clientDataOf(
  ctx: Pick<ResourceRuntimeContext, "log">,
  def: AnyResourceDefinition,
  ref: string,
  state: JsonObject,
  stored: boolean,
): JsonValue | undefined {
  let projected: unknown;
  try {
    projected = projectClientData(def, state);
  } catch (error) {
    ctx.log.warn(`resource "${ref}" client.data threw; served without clientData`, {
      error: (error as Error)?.message,
    });
    return undefined;
  }
  return !stored || projectionOf(def) === "data"
    ? toJsonValue(projected)
    : (projected as JsonValue | undefined);
}

export interface ResourceChange {
  def: AnyResourceDefinition;
  accessor: string;
  kind: "single" | "collection";
  change: ResourceChangeKind;
  identity: ResourceIdentity;
  state?: JsonObject;
  previousState?: JsonObject;
}

/**
 * Announces one committed change (resource_change rules 1–4): collections announce every mutation,
 * single resources only under `live: true`; under `live` state writes and creates carry the projected
 * `clientData` (never content), deletes mark the item gone and content writes carry no data. Every
 * change, announced or not, is then handed to `runReaction` inside the turn.
 */
export async function announceChange(ctx: ResourceRuntimeContext, change: ResourceChange): Promise<void> {
  const live = clientPermissions(change.def).live;
  if (change.kind === "collection" || live) {
    const data: JsonObject = { scope: change.identity.scope, ref: change.accessor, kind: change.kind };
    if (change.kind === "collection") data.topic = change.identity.path;
    data.change = change.change;
    if (live && change.state !== undefined && (change.change === "created" || change.change === "updated")) {
      const clientData = clientDataOf(ctx, change.def, change.accessor, change.state, false);
      if (clientData !== undefined) data.clientData = clientData;
    }
    await ctx.emit("resource_change", data);
  }
  if (ctx.runReaction) {
    const notice: ResourceChangeNotice = {
      ref: change.accessor,
      kind: change.kind,
      scope: change.identity.scope,
      change: change.change,
      path: change.identity.path,
      uri: change.identity.uri,
    };
    if (change.state !== undefined) notice.state = change.state;
    if (change.previousState !== undefined) notice.previousState = change.previousState;
    await ctx.runReaction(notice);
  }
}

/**
 * A scope's client projection: `expose` fields verbatim, `derived` values computed. A derived function
 * that throws is logged and left out rather than failing the write or the snapshot that asked for it.
 */
export function projectScopeState(
  ctx: ResourceRuntimeContext,
  scope: string,
  client: ScopeClientView,
  state: JsonObject,
): JsonObject {
  const out: JsonObject = {};
  for (const field of client.expose) {
    if (Object.hasOwn(state, field) && state[field] !== undefined) out[field] = state[field] as JsonValue;
  }
  for (const [name, derive] of Object.entries(client.derived)) {
    try {
      const value = toJsonValue(derive(state));
      if (value !== undefined) out[name] = value;
    } catch (error) {
      ctx.log.warn(`${scope} client.derived "${name}" threw; it is left out of clientData`, {
        error: (error as Error)?.message,
      });
    }
  }
  return out;
}
