/**
 * The shapes of block definitions. A block is a frozen object branded `[DEFINITION_KIND]: "block"` with a
 * discriminating `kind`; the runtime (`@flowrt/engine`) executes it. Input and output types ride along
 * on the optional phantom property `"~types"`, which never exists at runtime.
 */
import { type DEFINITION_KIND, definitionKindOf } from "../brand.js";
import type { BlockContext } from "../runtime-types.js";
import type { AnyResourceDefinition, HandleOf } from "./resource-ref.js";
import type { AnySchema, MaybePromise, SchemaState } from "./schema.js";

export type BlockKind = "handler" | "sequencer" | "router" | "generator";

/** Accessor name → resource definition, as a block or flow declares it under `resources`. */
export type ResourceMap = Readonly<Record<string, AnyResourceDefinition>>;

/**
 * The `ctx` a block's functions receive: declared resources typed through their definitions (other
 * accessors, such as flow-level resources, stay loosely typed), and scope state typed by the optional
 * `session`/`user`/`org` schemas.
 */
export type BlockContextFor<
  TResources extends ResourceMap = {},
  TSession = undefined,
  TUser = undefined,
  TOrg = undefined,
> = BlockContext<
  { [K in keyof TResources]: HandleOf<TResources[K]> } & Record<string, any>,
  SchemaState<TSession>,
  SchemaState<TUser>,
  SchemaState<TOrg>
>;

/** The context the runtime passes; blocks narrow it through their declared types. */
export type AnyBlockContext = BlockContext<any, any, any, any>;

interface BlockBase<TKind extends BlockKind, TInput, TOutput> {
  readonly [DEFINITION_KIND]: "block";
  readonly kind: TKind;
  /** Names the block in events, logs and errors. */
  readonly name: string;
  readonly description: string | undefined;
  /** Validates (and parses) the block's input before it runs. */
  readonly inputSchema: AnySchema | undefined;
  /** Validates (and parses) the block's output after it runs. */
  readonly outputSchema: AnySchema | undefined;
  /** Action-level resources this block declares (accessor → definition); `{}` when none. */
  readonly resources: ResourceMap;
  /** Type-level only: the block's input (as callers supply it) and output. Never present at runtime. */
  readonly "~types"?: { readonly input: TInput; readonly output: TOutput };
}

export interface HandlerBlock<TInput = unknown, TOutput = unknown>
  extends BlockBase<"handler", TInput, TOutput> {
  /** Receives the parsed input; the engine validates the result against `outputSchema` when set. */
  readonly execute: (input: any, ctx: AnyBlockContext) => unknown;
}

/** Maps the previous step's output (or the sequencer input) to a step's input. */
export type StepInputMapper = (
  prev: any,
  ctx: AnyBlockContext,
  outputs: Readonly<Record<string, unknown>>,
) => unknown;

export type StepPredicate = (
  prev: any,
  ctx: AnyBlockContext,
  outputs: Readonly<Record<string, unknown>>,
) => MaybePromise<boolean>;

/** A `rescue` fallback function: its return value becomes the step's output. */
export type RescueFallbackFn = (
  error: unknown,
  prev: any,
  ctx: AnyBlockContext,
  outputs: Readonly<Record<string, unknown>>,
) => unknown;

interface StepBase<TType extends string, TOutput> {
  readonly type: TType;
  /** Maps the previous output to this step's input; the previous output is passed unchanged without it. */
  readonly input: StepInputMapper | undefined;
  /** Keeps this step's output under this name for later steps (third argument of mappers). */
  readonly as: string | undefined;
  /** Type-level only. */
  readonly "~output"?: TOutput;
}

export interface BlockStep<TOutput = unknown> extends StepBase<"step", TOutput> {
  readonly block: AnyBlock;
}

export interface ConditionalStep<TOutput = unknown> extends StepBase<"stepIf", TOutput> {
  readonly predicate: StepPredicate;
  readonly block: AnyBlock;
}

export interface ParallelStep<TOutput = unknown> extends StepBase<"parallel", TOutput> {
  readonly blocks: readonly AnyBlock[];
}

export interface RescueStep<TOutput = unknown> extends StepBase<"rescue", TOutput> {
  readonly block: AnyBlock;
  readonly fallback: AnyBlock | RescueFallbackFn;
}

export type SequencerStep<TOutput = unknown> =
  | BlockStep<TOutput>
  | ConditionalStep<TOutput>
  | ParallelStep<TOutput>
  | RescueStep<TOutput>;

export interface SequencerBlock<TInput = unknown, TOutput = unknown>
  extends BlockBase<"sequencer", TInput, TOutput> {
  /** Run in order; each receives the previous step's output (the first gets the sequencer input). */
  readonly steps: readonly SequencerStep[];
}

export type RouteSelector = (input: any, ctx: AnyBlockContext) => MaybePromise<string>;

export interface RouterBlock<TInput = unknown, TOutput = unknown>
  extends BlockBase<"router", TInput, TOutput> {
  readonly routes: Readonly<Record<string, AnyBlock>>;
  /** Returns a declared route name; the engine refuses any other (`route-not-declared`). */
  readonly select: RouteSelector;
}

/**
 * An AI SDK `LanguageModel`, typed structurally because core depends on zod only: a gateway model id
 * string (`"openai/gpt-5"`) or a provider model object (`LanguageModelV2`/`V3`/`V4`, which all carry
 * `specificationVersion` and `modelId`). The engine, which depends on `ai`, passes it through unchanged.
 */
export type LanguageModelLike =
  | string
  | { readonly specificationVersion: string; readonly modelId: string; readonly provider?: string };

export type PromptSource = string | ((input: any, ctx: AnyBlockContext) => MaybePromise<string>);

export interface GeneratorBlock<TInput = unknown, TOutput = unknown>
  extends BlockBase<"generator", TInput, TOutput> {
  readonly model: LanguageModelLike;
  readonly system: PromptSource | undefined;
  readonly prompt: PromptSource;
  readonly user: string | ((ctx: AnyBlockContext) => string | undefined) | undefined;
  readonly tools:
    | Readonly<Record<string, unknown>>
    | ((ctx: AnyBlockContext) => Record<string, unknown>)
    | undefined;
  readonly contentTools: boolean;
  readonly maxSteps: number;
  readonly tokenBudget: number | undefined;
}

export type BlockDefinition<TInput = unknown, TOutput = unknown> =
  | HandlerBlock<TInput, TOutput>
  | SequencerBlock<TInput, TOutput>
  | RouterBlock<TInput, TOutput>
  | GeneratorBlock<TInput, TOutput>;

/** Any block, whatever its input and output types. */
export type AnyBlock = BlockDefinition<any, any>;

/** The input type callers supply to a block. */
export type BlockInput<TBlock> = TBlock extends { readonly "~types"?: { readonly input: infer I } }
  ? I
  : unknown;

/** The output type a block produces. */
export type BlockOutput<TBlock> = TBlock extends { readonly "~types"?: { readonly output: infer O } }
  ? O
  : unknown;

/** True for a block definition from any installed copy of `@flowrt/core`. */
export function isBlockDefinition(value: unknown): value is AnyBlock {
  return definitionKindOf(value) === "block";
}
