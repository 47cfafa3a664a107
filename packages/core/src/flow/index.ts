// Flow and block definition API. Re-exported by the package's src/index.ts.
export type {
  AnyBlock,
  AnyBlockContext,
  BlockContextFor,
  BlockDefinition,
  BlockInput,
  BlockKind,
  BlockOutput,
  BlockStep,
  ConditionalStep,
  GeneratorBlock,
  HandlerBlock,
  LanguageModelLike,
  ParallelStep,
  PromptSource,
  RescueFallbackFn,
  RescueStep,
  ResourceMap,
  RouterBlock,
  RouteSelector,
  SequencerBlock,
  SequencerStep,
  StepInputMapper,
  StepPredicate,
} from "../blocks/block-definition.js";
export { isBlockDefinition } from "../blocks/block-definition.js";
export { DEFAULT_GENERATOR_MAX_STEPS, type GeneratorOptions, generator } from "../blocks/generator.js";
export { type HandlerOptions, handler } from "../blocks/handler.js";
export { type RouterOptions, router } from "../blocks/router.js";
export type { AnySchema, SchemaInput, SchemaOutput, SchemaState } from "../blocks/schema.js";
export {
  type LastStepOutput,
  type SequencerOptions,
  type SequencerStepInput,
  sequencer,
} from "../blocks/sequencer.js";
export {
  isSequencerStep,
  parallel,
  rescue,
  type StepOptions,
  step,
  stepIf,
} from "../blocks/sequencer-steps.js";
export {
  blocksOfStep,
  childBlocks,
  collectBlockResources,
  type DeclaredResource,
  walkBlocks,
} from "../blocks/walk-blocks.js";
export { type NormalizedPrincipal, normalizeResolvedPrincipal } from "./authentication.js";
export { defineFlow, isFlowDefinition } from "./define-flow.js";
export type {
  ActionClientView,
  ActionsClientView,
  FlowClientView,
  ResourcesClientView,
  ScopeClientData,
  ScopeClientParts,
  ScopesClientData,
  WithInstanceId,
} from "./flow-client-view.js";
export type {
  ActionConfig,
  ActionDefinition,
  AnyFlowDefinition,
  ExecutionPolicy,
  FlowActionsOption,
  FlowAuthentication,
  FlowAuthenticationConfig,
  FlowContext,
  FlowDefinition,
  FlowOptions,
  FlowPrincipalResolver,
  FlowResolvedPrincipal,
  ReactionConfig,
  ReactionDefinition,
  ReactTrigger,
  ResourceChange,
  ScheduleConfig,
  ScheduleDefinition,
  ScheduledTick,
  SchedulePrincipal,
  ScopeClientConfig,
  ScopeConfig,
  ScopeDefinition,
  WebhookBinding,
  WebhookBindingConfig,
  WebhookInboundEvent,
  WebhookProviderBindings,
} from "./flow-types.js";
export { RESERVED_FLOW_IDS } from "./path-segment.js";
