import type { z } from "zod";
import { DefinitionError } from "../errors.js";
import { blockBase } from "./block-base.js";
import type { AnyBlock, BlockContextFor, BlockOutput, ResourceMap, RouterBlock } from "./block-definition.js";
import type { AnySchema, MaybePromise, SchemaInput, SchemaOutput } from "./schema.js";
import { describe, requireBlock, requireFunction } from "./validate.js";

export interface RouterOptions<
  TIn extends AnySchema | undefined,
  TOut extends AnySchema | undefined,
  TResources extends ResourceMap,
  TRoutes extends Record<string, AnyBlock>,
> {
  name: string;
  description?: string;
  /** Validates the router's input, which the selected route receives unchanged. @default no validation */
  inputSchema?: TIn;
  /** Validates the selected route's output. @default no validation */
  outputSchema?: TOut;
  /** Action-level resources (accessor → resource definition). @default {} */
  resources?: TResources;
  /** Route name → block; at least one. */
  routes: TRoutes;
  /** Picks a declared route; the engine refuses any other name with `route-not-declared`. */
  select: (
    input: SchemaOutput<TIn>,
    ctx: BlockContextFor<TResources>,
  ) => MaybePromise<Extract<keyof TRoutes, string>>;
}

/** Defines a router block: `select` picks one of the declared `routes`, which runs on the router's input. */
export function router<
  TRoutes extends Record<string, AnyBlock>,
  TIn extends AnySchema | undefined = undefined,
  TOut extends AnySchema | undefined = undefined,
  TResources extends ResourceMap = {},
>(
  options: RouterOptions<TIn, TOut, TResources, TRoutes>,
): RouterBlock<
  SchemaInput<TIn>,
  TOut extends AnySchema ? z.output<TOut> : BlockOutput<TRoutes[keyof TRoutes]>
> {
  const { base, where, options: raw } = blockBase("router", options, ["routes", "select"]);
  const routes = raw.routes;
  if (typeof routes !== "object" || routes === null || Array.isArray(routes)) {
    throw new DefinitionError(
      `${where}: "routes" must be an object of route name → block, got ${describe(routes)}.`,
    );
  }
  const entries = Object.entries(routes);
  if (entries.length === 0) throw new DefinitionError(`${where}: declare at least one route.`);
  const checked: Record<string, AnyBlock> = {};
  for (const [route, block] of entries) {
    if (route.trim() === "") throw new DefinitionError(`${where}: route names must be non-empty.`);
    checked[route] = requireBlock(where, `routes.${route}`, block);
  }
  const select = requireFunction<RouterBlock["select"]>(where, "select", raw.select);
  return Object.freeze({ ...base, routes: Object.freeze(checked), select });
}
