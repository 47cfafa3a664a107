/**
 * Test-only stand-ins for resource definitions, carrying exactly what blocks and flows read (brand, type,
 * scope, stateSchema). Not part of the package build.
 */
import type { z } from "zod";
import { DEFINITION_KIND } from "../../brand.js";
import type { ScopeKind } from "../../store/contract.js";

export function fakeResource<TType extends "single" | "collection" | "external", TSchema extends z.ZodType>(
  type: TType,
  scope: ScopeKind,
  stateSchema: TSchema,
  client?: object,
) {
  return Object.freeze({ [DEFINITION_KIND]: "resource" as const, type, scope, stateSchema, client });
}
