import { assertKnownKeys, describe, optionalBoolean, optionalFunction } from "../blocks/validate.js";
import { DefinitionError } from "../errors.js";
import type { FlowAuthenticationConfig, FlowPrincipalResolver } from "./flow-types.js";

export function normalizeAuthentication(where: string, value: unknown): FlowAuthenticationConfig {
  if (value === undefined) value = {};
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new DefinitionError(`${where}: "authentication" must be an object, got ${describe(value)}.`);
  }
  const auth = value as Record<string, unknown>;
  const at = `${where} authentication`;
  assertKnownKeys(at, auth, ["resolvePrincipal", "requireUser", "defaultUserId", "requireOrg"]);
  const defaultUserId = auth.defaultUserId;
  if (defaultUserId !== undefined && (typeof defaultUserId !== "string" || defaultUserId === "")) {
    throw new DefinitionError(
      `${at}: "defaultUserId" must be a non-empty string, got ${describe(defaultUserId)}.`,
    );
  }
  return Object.freeze({
    resolvePrincipal: optionalFunction<FlowPrincipalResolver>(at, "resolvePrincipal", auth.resolvePrincipal),
    requireUser: optionalBoolean(at, "requireUser", auth.requireUser, true),
    defaultUserId,
    requireOrg: optionalBoolean(at, "requireOrg", auth.requireOrg, false),
  });
}

/** A resolver's result with only its usable fields: non-empty strings. */
export interface NormalizedPrincipal {
  userId?: string;
  orgId?: string;
  tenantId?: string;
}

/**
 * Reduces what a resolver returned to the fields the runtime trusts: each of `userId`, `orgId`,
 * `tenantId` is kept only when it is a non-empty string (a header array, a number or `""` counts as
 * absent). Anything that is not an object yields `null`, which falls through to `defaultUserId`.
 */
export function normalizeResolvedPrincipal(value: unknown): NormalizedPrincipal | null {
  if (typeof value !== "object" || value === null) return null;
  const raw = value as Record<string, unknown>;
  const out: NormalizedPrincipal = {};
  for (const field of ["userId", "orgId", "tenantId"] as const) {
    const v = raw[field];
    if (typeof v === "string" && v !== "") out[field] = v;
  }
  return out;
}
