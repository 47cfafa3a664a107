import { expect } from "vitest";
import { definitionError } from "../../blocks/testing/definition-error.js";

/**
 * Runs `make`, expects a `DefinitionError` for `option`, and returns its message for further checks. Test-only
 * (excluded from the public surface: nothing in src/index.ts reaches it). Builds on the blocks' `definitionError`,
 * which fails the test when nothing, or anything but a DefinitionError, is thrown.
 */
export function definitionErrorOf(make: () => unknown, option: string, resource?: string): string {
  const error = definitionError(make);
  expect(error.name).toBe("DefinitionError");
  expect(error.details?.option).toBe(option);
  if (resource !== undefined) expect(error.details?.resource).toBe(resource);
  return error.message;
}
