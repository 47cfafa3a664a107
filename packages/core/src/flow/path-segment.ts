import { URL_SAFE_NAME } from "../blocks/validate.js";
import { DefinitionError } from "../errors.js";

/**
 * Words that sit where a flow id sits in the HTTP API (`/api/flows/sessions`, `/api/flows/openapi.json`...),
 * so no flow kind or instance id may take them.
 */
export const RESERVED_FLOW_IDS: readonly string[] = Object.freeze([
  "sessions",
  "requests",
  "active-requests",
  "schedules",
  "openapi.json",
]);

/**
 * Throws unless `value` can be one URL path segment as is: letters, digits, `_`, `.`, `-`, and not `.`
 * or `..` (which URL parsers resolve away).
 */
export function assertPathName(where: string, field: string, value: unknown): asserts value is string {
  if (typeof value !== "string" || !URL_SAFE_NAME.test(value) || value === "." || value === "..") {
    throw new DefinitionError(
      `${where}: ${field} must be a non-empty string of letters, digits, "_", "." and "-" (not "." or ".."), ` +
        `got ${JSON.stringify(value) ?? String(value)}.`,
      { field },
    );
  }
}

/** Throws unless `value` is a usable flow kind or instance id: a path name that is not a reserved word. */
export function assertFlowId(where: string, field: string, value: unknown): asserts value is string {
  assertPathName(where, field, value);
  if (RESERVED_FLOW_IDS.includes(value)) {
    throw new DefinitionError(
      `${where}: ${field} may not be "${value}", a reserved path word (${RESERVED_FLOW_IDS.join(", ")}).`,
      { field },
    );
  }
}
