import { expect } from "vitest";
import { hasErrorCode } from "../../errors.js";

/**
 * Runs `make`, expects a `DefinitionError` for `option`, and returns its message for further checks. Test-only
 * (excluded from the public surface: nothing in src/index.ts reaches it).
 */
export function definitionErrorOf(make: () => unknown, option: string, resource?: string): string {
  let caught: unknown;
  try {
    make();
  } catch (error) {
    caught = error;
  }
  expect(caught, "expected a DefinitionError").toBeDefined();
  expect(hasErrorCode(caught, "definition-error")).toBe(true);
  const error = caught as Error & { details?: Record<string, unknown> };
  expect(error.name).toBe("DefinitionError");
  expect(error.details?.option).toBe(option);
  if (resource !== undefined) expect(error.details?.resource).toBe(resource);
  return error.message;
}
