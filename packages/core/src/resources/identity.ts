import type { ResourceIdentity } from "../runtime-types.js";
import type { ScopeKind } from "../store/contract.js";
import type { AnyResourceDefinition, SingleResourceDefinition } from "./types.js";

/**
 * The immutable identity every handle carries: `path` (the within-scope storage key, a plain slash-delimited
 * string with no normalization and no `..` handling), `scope` and `uri` = `${scope}/${path}` (opaque, not an
 * RFC 3986 URI).
 */
export function resourceIdentity(scope: ScopeKind, path: string): ResourceIdentity {
  return Object.freeze({ path, scope, uri: `${scope}/${path}` });
}

/** Splits a `uri` back into scope and path; `undefined` when it does not start with a scope. */
export function parseResourceUri(uri: string): { scope: ScopeKind; path: string } | undefined {
  const slash = uri.indexOf("/");
  if (slash <= 0) return undefined;
  const scope = uri.slice(0, slash);
  const path = uri.slice(slash + 1);
  if ((scope !== "session" && scope !== "user" && scope !== "org") || path === "") return undefined;
  return { scope, path };
}

/** A single resource's storage path: its `ref` when given, else the accessor name the flow registers it under. */
export function singleResourcePath(def: SingleResourceDefinition<any>, accessor: string): string {
  return def.ref ?? accessor;
}

/** What a session is bound to, as recorded when it was created. */
export interface ScopeBinding {
  sessionId: string;
  /** The conversation the session was dispatched beneath (its own id for a root). */
  rootSessionId?: string;
  userId: string;
  orgId?: string | undefined;
}

/**
 * The scope id a resource resolves against (client rule 7): session scope → the session (its root conversation
 * when `sharedToLineage`), user scope → the session's user, org scope → the org the session is bound to
 * (`undefined` when the session has no org: an org-scoped resource is then unavailable).
 */
export function resolveScopeId(def: AnyResourceDefinition, binding: ScopeBinding): string | undefined {
  switch (def.scope) {
    case "session":
      return "sharedToLineage" in def && def.sharedToLineage
        ? (binding.rootSessionId ?? binding.sessionId)
        : binding.sessionId;
    case "user":
      return binding.userId;
    case "org":
      return binding.orgId;
  }
}

/** A flow's choices of where its user and org data live (`defineFlow`'s `isolateUserState` / `isolateOrgState`). */
export interface BucketFlags {
  isolateUserState: boolean;
  isolateOrgState: boolean;
}

/**
 * Whether data of `scope` lives in the flow's own bucket rather than the one every flow shares: user and org
 * scope do when the resource sets `flowIsolation` or the flow isolates that scope; session scope never does.
 * The one rule for the engine's addresses and the definition-time overlap check.
 */
export function inFlowBucket(scope: ScopeKind, flowIsolation: boolean, flags: BucketFlags): boolean {
  if (scope === "user") return flowIsolation || flags.isolateUserState;
  if (scope === "org") return flowIsolation || flags.isolateOrgState;
  return false;
}
