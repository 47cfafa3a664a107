import type { AnyBlock, SequencerStep } from "./block-definition.js";
import { isBlockDefinition } from "./block-definition.js";
import type { AnyResourceDefinition } from "./resource-ref.js";

/** The blocks a step runs (a `rescue` fallback counts when it is a block). */
export function blocksOfStep(step: SequencerStep): AnyBlock[] {
  switch (step.type) {
    case "step":
    case "stepIf":
      return [step.block];
    case "parallel":
      return [...step.blocks];
    case "rescue":
      return isBlockDefinition(step.fallback) ? [step.block, step.fallback] : [step.block];
  }
}

/** The direct children of a block: sequencer steps' blocks and router routes. */
export function childBlocks(block: AnyBlock): AnyBlock[] {
  switch (block.kind) {
    case "sequencer":
      return block.steps.flatMap(blocksOfStep);
    case "router":
      return Object.values(block.routes);
    default:
      return [];
  }
}

/**
 * Visits `root` and every block beneath it (sequencer steps, rescue fallbacks, router routes), depth
 * first, parents before children. A block reachable by several paths is visited once.
 */
export function walkBlocks(root: AnyBlock, visit: (block: AnyBlock) => void): void {
  const seen = new Set<AnyBlock>();
  const pending: AnyBlock[] = [root];
  while (pending.length > 0) {
    const block = pending.pop()!;
    if (seen.has(block)) continue;
    seen.add(block);
    visit(block);
    // Reverse so that children are visited in declaration order.
    pending.push(...childBlocks(block).reverse());
  }
}

export interface DeclaredResource {
  /** The name on `ctx.resources`. */
  accessor: string;
  definition: AnyResourceDefinition;
  /** The block that declared it. */
  blockName: string;
}

/** Every resource declared in a block tree, in visiting order (see {@link walkBlocks}). */
export function collectBlockResources(root: AnyBlock): DeclaredResource[] {
  const declared: DeclaredResource[] = [];
  walkBlocks(root, (block) => {
    for (const [accessor, definition] of Object.entries(block.resources)) {
      declared.push({ accessor, definition, blockName: block.name });
    }
  });
  return declared;
}
