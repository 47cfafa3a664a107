import { isBlockDefinition } from "../blocks/block-definition.js";
import { DefinitionError } from "../errors.js";
import type { ReactionDefinition, ResourceChange } from "./flow-types.js";

const CHANGES: readonly ResourceChange[] = ["created", "updated", "deleted", "content"];

/** Normalizes `reactions`: `{ contentUpdated: ref }` is `{ resource: ref, changes: ["content"] }`. */
export function normalizeReactions(kind: string, value: unknown): readonly ReactionDefinition[] {
  if (value === undefined) return Object.freeze([]);
  if (!Array.isArray(value)) {
    throw new DefinitionError(`Flow "${kind}": "reactions" must be an array of { reactTo, block }.`);
  }
  return Object.freeze(
    value.map((entry, i) => {
      const where = `Flow "${kind}" reactions[${i}]`;
      if (
        typeof entry !== "object" ||
        entry === null ||
        !isBlockDefinition((entry as { block?: unknown }).block)
      ) {
        throw new DefinitionError(
          `${where}: needs a "block" made with handler(), sequencer(), router() or generator().`,
        );
      }
      const trigger = (entry as { reactTo?: unknown }).reactTo as Record<string, unknown> | undefined;
      let resource: unknown;
      let changes: unknown;
      if (trigger && typeof trigger.contentUpdated === "string") {
        resource = trigger.contentUpdated;
        changes = ["content"];
      } else if (trigger && typeof trigger.resource === "string") {
        resource = trigger.resource;
        changes = trigger.changes ?? CHANGES;
      }
      if (typeof resource !== "string" || resource === "") {
        throw new DefinitionError(
          `${where}: "reactTo" must be { resource: "<accessor>", changes? } or { contentUpdated: "<accessor>" }.`,
        );
      }
      if (!Array.isArray(changes) || changes.length === 0 || changes.some((c) => !CHANGES.includes(c))) {
        throw new DefinitionError(`${where}: "reactTo.changes" lists some of ${CHANGES.join(", ")}.`);
      }
      return Object.freeze({
        reactTo: Object.freeze({ resource, changes: Object.freeze([...changes] as ResourceChange[]) }),
        block: (entry as { block: ReactionDefinition["block"] }).block,
      });
    }),
  );
}
