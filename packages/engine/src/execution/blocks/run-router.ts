import { FlowError, type RouterBlock } from "@flowrt/core";
import type { BlockRun } from "./block-run.js";
import type { ExecuteBlock } from "./execute-block.js";

/**
 * Runs `select` and then the route it names, on the router's input. A name that is not one of the
 * declared routes (own keys of `routes`) is refused with `route-not-declared` before any route runs.
 */
export async function runRouter(
  block: RouterBlock,
  input: unknown,
  run: BlockRun,
  execute: ExecuteBlock,
): Promise<unknown> {
  const selected: unknown = await block.select(input, run.ctx);
  if (typeof selected !== "string" || !Object.hasOwn(block.routes, selected)) {
    const shown = typeof selected === "string" ? `"${selected}"` : `a ${typeof selected}`;
    throw new FlowError(
      "route-not-declared",
      `Router "${block.name}" selected ${shown}, which is not one of its routes (${Object.keys(block.routes)
        .map((name) => `"${name}"`)
        .join(", ")}).`,
      { details: { block: block.name, route: typeof selected === "string" ? selected : null } },
    );
  }
  return execute(block.routes[selected]!, input, run);
}
