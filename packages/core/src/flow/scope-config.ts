import { objectShapeKeys } from "../blocks/schema.js";
import { assertKnownKeys, assertOptions, describe, optionalSchema } from "../blocks/validate.js";
import { DefinitionError } from "../errors.js";
import type { ScopeKind } from "../store/contract.js";
import type { ScopeDefinition } from "./flow-types.js";

const EMPTY_SCOPE: ScopeDefinition = Object.freeze({ stateSchema: undefined, client: undefined });

/**
 * Checks a flow's `session`/`user`/`org` option. `expose` fields must exist in the schema's shape: a
 * misspelt field would otherwise silently publish nothing.
 */
export function normalizeScopeConfig(flowKind: string, scope: ScopeKind, value: unknown): ScopeDefinition {
  if (value === undefined) return EMPTY_SCOPE;
  const where = `Flow "${flowKind}" ${scope}`;
  assertOptions(where, value);
  assertKnownKeys(where, value, ["stateSchema", "client"]);
  const stateSchema = optionalSchema(where, "stateSchema", value.stateSchema);
  if (value.client === undefined) return Object.freeze({ stateSchema, client: undefined });
  assertOptions(`${where} client`, value.client);
  assertKnownKeys(`${where} client`, value.client, ["expose", "derived"]);
  const { expose, derived } = value.client;

  if (expose !== undefined && (!Array.isArray(expose) || expose.some((f) => typeof f !== "string"))) {
    throw new DefinitionError(
      `${where}: "client.expose" must be an array of field names, got ${describe(expose)}.`,
    );
  }
  const fields = (expose ?? []) as string[];
  if (fields.length > 0 && stateSchema === undefined) {
    throw new DefinitionError(
      `Flow "${flowKind}" ${scope} client exposes "${fields[0]}" but declares no ${scope} stateSchema to expose it from.`,
      { flow: flowKind, scope, field: fields[0] },
    );
  }
  const known = stateSchema === undefined ? [] : objectShapeKeys(stateSchema);
  for (const field of fields) {
    if (known === undefined) {
      throw new DefinitionError(
        `${where}: "client.expose" needs an object stateSchema (z.object) to check field "${field}" against.`,
        { flow: flowKind, scope, field },
      );
    }
    if (!known.includes(field)) {
      throw new DefinitionError(
        `Flow "${flowKind}" ${scope} client exposes "${field}", which is not a field of its ${scope} stateSchema` +
          `${known.length ? ` (fields: ${known.join(", ")})` : ""}.`,
        { flow: flowKind, scope, field },
      );
    }
  }

  if (derived !== undefined && (typeof derived !== "object" || derived === null || Array.isArray(derived))) {
    throw new DefinitionError(
      `${where}: "client.derived" must be an object of functions, got ${describe(derived)}.`,
    );
  }
  const computed: Record<string, (state: any) => unknown> = {};
  for (const [key, fn] of Object.entries(derived ?? {})) {
    if (typeof fn !== "function") {
      throw new DefinitionError(
        `${where}: "client.derived.${key}" must be a function, got ${describe(fn)}.`,
        {
          flow: flowKind,
          scope,
          field: key,
        },
      );
    }
    if (fields.includes(key)) {
      throw new DefinitionError(
        `${where}: "${key}" is both exposed and derived; clientData.${scope} would hold two values under one key.`,
        { flow: flowKind, scope, field: key },
      );
    }
    computed[key] = fn as (state: any) => unknown;
  }
  return Object.freeze({
    stateSchema,
    client: Object.freeze({ expose: Object.freeze([...fields]), derived: Object.freeze(computed) }),
  });
}
