import { assertKnownKeys, assertOptions, requireBlock } from "../blocks/validate.js";
import { DefinitionError } from "../errors.js";
import type { ReactionDefinition, ResourceChange } from "./flow-types.js";

const CHANGES: readonly ResourceChange[] = ["created", "updated", "deleted", "content"];

function normalizeTrigger(where: string, value: unknown): ReactionDefinition["reactTo"] {
  const at = `${where} reactTo`;
  assertOptions(at, value);
  if ("contentUpdated" in value) {
    assertKnownKeys(at, value, ["contentUpdated"]);
    return trigger(at, value.contentUpdated, ["content"]);
  }
  assertKnownKeys(at, value, ["resource", "changes"]);
  return trigger(at, value.resource, value.changes ?? CHANGES);
}

function trigger(at: string, resource: unknown, changes: unknown): ReactionDefinition["reactTo"] {
  if (typeof resource !== "string" || resource === "") {
    throw new DefinitionError(
      `${at}: must be { resource: "<accessor>", changes? } or { contentUpdated: "<accessor>" }.`,
    );
  }
  if (!Array.isArray(changes) || changes.length === 0 || changes.some((c) => !CHANGES.includes(c))) {
    throw new DefinitionError(`${at}: "changes" lists some of ${CHANGES.join(", ")}.`);
  }
  return Object.freeze({ resource, changes: Object.freeze([...changes] as ResourceChange[]) });
}

/** Normalizes `reactions`: `{ contentUpdated: ref }` is `{ resource: ref, changes: ["content"] }`. */
export function normalizeReactions(kind: string, value: unknown): readonly ReactionDefinition[] {
  if (value === undefined) return Object.freeze([]);
  if (!Array.isArray(value)) {
    throw new DefinitionError(`Flow "${kind}": "reactions" must be an array of { reactTo, block }.`);
  }
  return Object.freeze(
    value.map((entry: unknown, i) => {
      const where = `Flow "${kind}" reactions[${i}]`;
      assertOptions(where, entry);
      assertKnownKeys(where, entry, ["reactTo", "block"]);
      const block = requireBlock(where, "block", entry.block);
      return Object.freeze({ reactTo: normalizeTrigger(where, entry.reactTo), block });
    }),
  );
}
