import { expect } from "vitest";
import { DefinitionError } from "../../errors.js";

/** Runs `fn` and returns the DefinitionError it throws; fails the test if it throws anything else or nothing. */
export function definitionError(fn: () => unknown): DefinitionError {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(DefinitionError);
    expect((error as DefinitionError).code).toBe("definition-error");
    return error as DefinitionError;
  }
  throw new Error("expected a DefinitionError, nothing was thrown");
}
