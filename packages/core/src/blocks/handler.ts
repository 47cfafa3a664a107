import type { z } from "zod";
import { blockBase } from "./block-base.js";
import type { BlockContextFor, HandlerBlock, ResourceMap } from "./block-definition.js";
import type { AnySchema, MaybePromise, SchemaInput, SchemaOutput } from "./schema.js";
import { optionalSchema, requireFunction } from "./validate.js";

export interface HandlerOptions<
  TIn extends AnySchema | undefined,
  TOut extends AnySchema | undefined,
  TResult,
  TResources extends ResourceMap,
  TSession extends AnySchema | undefined,
  TUser extends AnySchema | undefined,
  TOrg extends AnySchema | undefined,
> {
  /** Names the block in events, logs and errors. */
  name: string;
  /** Shown where the block is listed (for example when an action is offered as a tool). */
  description?: string;
  /** Validates the input; `execute` receives the parsed value. @default no validation (input is `unknown`) */
  inputSchema?: TIn;
  /** Validates `execute`'s result; the block's output is the parsed value. @default no validation */
  outputSchema?: TOut;
  /**
   * Action-level resources: accessor → resource definition. They load when the action runs and appear
   * typed on `ctx.resources`. @default {}
   */
  resources?: TResources;
  /** Types `ctx.session.state` (typing only: the flow's `session.stateSchema` governs the stored state). */
  session?: TSession;
  /** Types `ctx.user.state` (typing only). */
  user?: TUser;
  /** Types `ctx.org.state` (typing only). */
  org?: TOrg;
  execute: (
    input: SchemaOutput<TIn>,
    ctx: BlockContextFor<TResources, TSession, TUser, TOrg>,
  ) => MaybePromise<TOut extends AnySchema ? z.input<TOut> : TResult>;
}

/**
 * Defines a handler block: a function from input to output with typed access to the flow's state.
 *
 * @example
 * const addNote = handler({
 *   name: "addNote",
 *   inputSchema: z.object({ key: z.string(), title: z.string() }),
 *   execute: async (input, ctx) => {
 *     await ctx.resources.notes.create(input.key, { title: input.title });
 *     return { ok: true };
 *   },
 * });
 */
export function handler<
  TIn extends AnySchema | undefined = undefined,
  TOut extends AnySchema | undefined = undefined,
  TResult = unknown,
  TResources extends ResourceMap = {},
  TSession extends AnySchema | undefined = undefined,
  TUser extends AnySchema | undefined = undefined,
  TOrg extends AnySchema | undefined = undefined,
>(
  options: HandlerOptions<TIn, TOut, TResult, TResources, TSession, TUser, TOrg>,
): HandlerBlock<SchemaInput<TIn>, TOut extends AnySchema ? z.output<TOut> : Awaited<TResult>> {
  const { base, where, options: raw } = blockBase("handler", options, ["session", "user", "org", "execute"]);
  for (const scope of ["session", "user", "org"] as const) optionalSchema(where, scope, raw[scope]);
  const execute = requireFunction<HandlerBlock["execute"]>(where, "execute", raw.execute);
  return Object.freeze({ ...base, execute });
}
