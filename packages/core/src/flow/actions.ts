import { isBlockDefinition } from "../blocks/block-definition.js";
import {
  assertKnownKeys,
  assertOptions,
  describe,
  optionalBoolean,
  optionalFunction,
  optionalPositiveInteger,
  optionalString,
  requireBlock,
} from "../blocks/validate.js";
import { DefinitionError } from "../errors.js";
import type { ActionDefinition } from "./flow-types.js";
import { assertPathName } from "./path-segment.js";

export const POLICY_KEYS = ["durable", "tokenBudget", "onCompleted", "onErrored"] as const;

type Policy = Pick<ActionDefinition, "durable" | "tokenBudget" | "onCompleted" | "onErrored">;

/** Checks the execution policy shared by actions and webhook bindings. */
export function normalizePolicy(where: string, config: Record<string, unknown>): Policy {
  return {
    durable: optionalBoolean(where, "durable", config.durable, false),
    tokenBudget: optionalPositiveInteger(where, "tokenBudget", config.tokenBudget),
    onCompleted: optionalFunction<Policy["onCompleted"]>(where, "onCompleted", config.onCompleted),
    onErrored: optionalFunction<Policy["onErrored"]>(where, "onErrored", config.onErrored),
  };
}

export function normalizeActions(
  flowKind: string,
  value: unknown,
): Readonly<Record<string, ActionDefinition>> {
  if (value === undefined) return Object.freeze({});
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new DefinitionError(
      `Flow "${flowKind}": "actions" must be an object of name → block, got ${describe(value)}.`,
    );
  }
  const actions: Record<string, ActionDefinition> = {};
  for (const [name, entry] of Object.entries(value)) {
    assertPathName(`Flow "${flowKind}"`, `action name`, name);
    const where = `Flow "${flowKind}" action "${name}"`;
    const config: Record<string, unknown> = isBlockDefinition(entry) ? { block: entry } : (entry as never);
    assertOptions(where, config);
    assertKnownKeys(where, config, ["block", "description", ...POLICY_KEYS]);
    const block = requireBlock(where, "block", config.block);
    actions[name] = Object.freeze({
      name,
      block,
      description: optionalString(where, "description", config.description) ?? block.description,
      ...normalizePolicy(where, config),
    });
  }
  return Object.freeze(actions);
}
