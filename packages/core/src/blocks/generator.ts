import type { z } from "zod";
import { DefinitionError } from "../errors.js";
import { blockBase } from "./block-base.js";
import type { BlockContextFor, GeneratorBlock, LanguageModelLike, ResourceMap } from "./block-definition.js";
import type { AnySchema, MaybePromise, SchemaInput, SchemaOutput } from "./schema.js";
import { describe, optionalBoolean, optionalPositiveInteger } from "./validate.js";

/** The default for `maxSteps`. */
export const DEFAULT_GENERATOR_MAX_STEPS = 5;

export interface GeneratorOptions<
  TIn extends AnySchema | undefined,
  TOut extends AnySchema | undefined,
  TResources extends ResourceMap,
> {
  name: string;
  description?: string;
  /**
   * An AI SDK `LanguageModel`: a provider model object (`openai("gpt-5")`) or a gateway model id string.
   * Typed structurally here; see {@link LanguageModelLike}.
   */
  model: LanguageModelLike;
  /** The system message. @default none */
  system?: string | ((input: SchemaOutput<TIn>, ctx: BlockContextFor<TResources>) => MaybePromise<string>);
  /** The prompt (user turn) sent to the model, fixed or built from the block's input. */
  prompt: string | ((input: SchemaOutput<TIn>, ctx: BlockContextFor<TResources>) => MaybePromise<string>);
  /**
   * An end-user identifier forwarded to the model provider (for its abuse monitoring), fixed or derived
   * from the context. @default none: no user identifier leaves the host
   */
  user?: string | ((ctx: BlockContextFor<TResources>) => string | undefined);
  /** AI SDK tools, fixed or built per request from the context. @default none */
  tools?: Record<string, unknown> | ((ctx: BlockContextFor<TResources>) => Record<string, unknown>);
  /**
   * Adds the generic content tools (glob, grep, search, read and write resource content), which reach
   * only resources marked `llmReadable` / `llmWritable`. @default false
   */
  contentTools?: boolean;
  /** The most model round trips (tool calls included) per run. @default 5 */
  maxSteps?: number;
  /**
   * Asks the model for structured output validated by this schema; the block's output is the parsed
   * object. @default none: the output is the final text (a string)
   */
  outputSchema?: TOut;
  /** The most tokens (input + output) one run may use; exceeding it fails with `token-budget-exceeded`. @default unlimited */
  tokenBudget?: number;
  /** Validates the input before the prompt is built. @default no validation */
  inputSchema?: TIn;
  /** Action-level resources (accessor → resource definition). @default {} */
  resources?: TResources;
}

function isLanguageModelLike(value: unknown): value is LanguageModelLike {
  if (typeof value === "string") return value.trim() !== "";
  if (typeof value !== "object" || value === null) return false;
  const model = value as { specificationVersion?: unknown; modelId?: unknown };
  return typeof model.specificationVersion === "string" && typeof model.modelId === "string";
}

function promptSource(where: string, field: string, value: unknown, required: boolean) {
  if (value === undefined && !required) return undefined;
  if (typeof value !== "string" && typeof value !== "function") {
    throw new DefinitionError(`${where}: "${field}" must be a string or a function, got ${describe(value)}.`);
  }
  return value as GeneratorBlock["prompt"];
}

/** Defines a generator block: one AI SDK model run (with tools, up to `maxSteps` round trips). */
export function generator<
  TIn extends AnySchema | undefined = undefined,
  TOut extends AnySchema | undefined = undefined,
  TResources extends ResourceMap = {},
>(
  options: GeneratorOptions<TIn, TOut, TResources>,
): GeneratorBlock<SchemaInput<TIn>, TOut extends AnySchema ? z.output<TOut> : string> {
  const {
    base,
    where,
    options: raw,
  } = blockBase("generator", options, [
    "model",
    "system",
    "prompt",
    "user",
    "tools",
    "contentTools",
    "maxSteps",
    "tokenBudget",
  ]);
  if (!isLanguageModelLike(raw.model)) {
    throw new DefinitionError(
      `${where}: "model" must be an AI SDK language model or a non-empty model id string, got ${describe(raw.model)}.`,
    );
  }
  const tools = raw.tools;
  if (
    tools !== undefined &&
    typeof tools !== "function" &&
    (typeof tools !== "object" || tools === null || Array.isArray(tools))
  ) {
    throw new DefinitionError(
      `${where}: "tools" must be an object of tools or a function, got ${describe(tools)}.`,
    );
  }
  const user = raw.user;
  if (user !== undefined && typeof user !== "string" && typeof user !== "function") {
    throw new DefinitionError(`${where}: "user" must be a string or a function, got ${describe(user)}.`);
  }
  return Object.freeze({
    ...base,
    model: raw.model,
    system: promptSource(where, "system", raw.system, false),
    prompt: promptSource(where, "prompt", raw.prompt, true) as GeneratorBlock["prompt"],
    user: user as GeneratorBlock["user"],
    tools:
      tools === undefined || typeof tools === "function"
        ? (tools as GeneratorBlock["tools"])
        : Object.freeze({ ...tools }),
    contentTools: optionalBoolean(where, "contentTools", raw.contentTools, false),
    maxSteps: optionalPositiveInteger(where, "maxSteps", raw.maxSteps) ?? DEFAULT_GENERATOR_MAX_STEPS,
    tokenBudget: optionalPositiveInteger(where, "tokenBudget", raw.tokenBudget),
  });
}
