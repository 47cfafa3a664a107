import { AsyncLocalStorage } from "node:async_hooks";
import {
  type AnyBlock,
  type AnyResourceDefinition,
  type BlockLogger,
  type FlowStores,
  isSingleResourceDefinition,
  type JsonObject,
  type Principal,
  type ReactionDefinition,
  type RequestRecord,
} from "@flowrt/core";
import { principalOfRecord } from "../access/principal.js";
import { blockResources } from "../flows/registry.js";
import type { HostLogger } from "../logger.js";
import type { ClaimedRun } from "../requests/active-run.js";
import type { PreparedRun } from "../requests/request-runner.js";
import {
  createContentTools,
  createResourceScope,
  type ResourceRuntimeContext,
  type ResourceScope,
} from "../resources/index.js";
import type { AiTelemetrySettings } from "../telemetry/telemetry-options.js";
import { executeBlock } from "./blocks/execute-block.js";
import { type BlockRun, createTokenBudget, runAction, type TokenBudget } from "./blocks/index.js";
import { checkEmittedEvent, type EmittedEvent } from "./emitted-event.js";
import { FencedStores } from "./fenced-stores.js";
import { requestLogger } from "./request-logger.js";
import { RunContext, type RunContextSource } from "./run-context.js";
import { RunSessionHandle, type SessionRecordWriter } from "./run-session-handle.js";

/**
 * What a run is built from: the stores it writes to, the logger its `ctx.log` writes to and what changes its
 * session's record (`ctx.session.setTitle` / `setMetadata`); never the host.
 */
export interface RunDependencies {
  readonly stores: FlowStores;
  readonly logger: HostLogger;
  readonly sessions?: SessionRecordWriter;
  /** The AI SDK `telemetry` setting for generators' model calls (`createFlowHost({ telemetry: { ai } })`). */
  readonly aiTelemetry?: AiTelemetrySettings | undefined;
}

/** The reactions running in the current async context: a change made by one of them does not run it again. */
const runningReactions = new AsyncLocalStorage<ReadonlySet<ReactionDefinition>>();

function isLazySingle(def: AnyResourceDefinition): boolean {
  return isSingleResourceDefinition(def) && def.prefetchMode === "lazy";
}

/**
 * One action run: what the block tree sees ({@link BlockRun}) and what its resources see (the
 * {@link ResourceRuntimeContext}), in one object whose methods and getters stand in for per-run
 * closures; the logger and the abort signal are made on first use (most runs use neither).
 */
class ActionRun implements BlockRun, ResourceRuntimeContext, PreparedRun, RunContextSource {
  readonly ctx: RunContext;
  readonly budget: TokenBudget;
  readonly scope: ResourceScope;
  readonly stores: ResourceRuntimeContext["stores"];
  readonly flow: ResourceRuntimeContext["flow"];
  readonly session: ResourceRuntimeContext["session"];
  readonly principal: Principal;
  readonly requestId: string;
  /** Set only when the flow has reactions: resources skip building change notices without it. */
  runReaction?: (notice: { ref: string; change: string }) => Promise<void>;
  private logger: BlockLogger | undefined;
  private emitter: ((event: { type: string; data?: JsonObject }) => Promise<void>) | undefined;
  private tools: Record<string, unknown> | undefined;
  private builtSessionHandle: RunSessionHandle | undefined;
  /** Lazy single resources of the action's tree not loaded yet; set when the action's block dispatches. */
  private waitingLazy: Set<string> | undefined;
  /** The block's input until {@link execute} hands it to the block. */
  private input: { value: unknown; parsed: boolean } | undefined;

  constructor(
    private readonly deps: RunDependencies,
    private readonly run: ClaimedRun,
    record: RequestRecord,
    principal: Principal,
    input: { value: unknown; parsed: boolean },
  ) {
    this.input = input;
    const { flow, session, policy } = run;
    this.budget = createTokenBudget(policy.tokenBudget);
    // A durable run writes through the fenced view: once another host takes the request over, its writes are refused.
    this.stores = run.fence === undefined ? deps.stores : new FencedStores(deps.stores, run, run.fence);
    this.flow = flow.definition;
    this.session = session;
    this.principal = principal;
    this.requestId = record.id;
    if (flow.definition.reactions.length > 0) this.runReaction = (notice) => this.react(notice);
    this.scope = createResourceScope(this, flow.flowResources);
    this.ctx = new RunContext(this, principal, session.id, record.id, flow);
  }

  /** `ctx.emit`. */
  get contextEmit(): (event: EmittedEvent) => Promise<void> {
    this.emitter ??= (event) => this.emitOwn(event);
    return this.emitter;
  }

  /**
   * An event of the application's own: a type the engine writes itself (`request.*`, `block.*`, `text.delta`, …)
   * is refused with `reserved-event-type` and nothing is appended.
   */
  private emitOwn(event: EmittedEvent): Promise<void> {
    const checked = checkEmittedEvent(event);
    return checked instanceof Error ? Promise.reject(checked) : this.emit(checked.type, checked.data);
  }

  /** `ctx.session`: the session scope's handle, with the record's setters (made on first read). */
  get sessionHandle(): RunSessionHandle {
    this.builtSessionHandle ??= new RunSessionHandle(
      this.scope.scopes.session,
      this.run,
      this.session.id,
      this.deps.sessions,
    );
    return this.builtSessionHandle;
  }

  get aiTelemetry(): AiTelemetrySettings | undefined {
    return this.deps.aiTelemetry;
  }

  get signal(): AbortSignal {
    return this.run.abort.signal;
  }

  get aborted(): boolean {
    return this.run.abort.aborted;
  }

  get ended(): boolean {
    return this.run.abort.ended;
  }

  get log(): BlockLogger {
    // The submitting HTTP request's logger when there is one (its lines carry that request's `reqId`).
    this.logger ??= requestLogger(this.run.log ?? this.deps.logger, {
      requestId: this.requestId,
      flowId: this.run.flow.id,
    });
    return this.logger;
  }

  /** Runs the block tree under the action's policy; the input goes to the block and is no longer held here. */
  execute(): Promise<unknown> {
    const { input } = this;
    if (input === undefined) return Promise.reject(new Error(`Request "${this.requestId}" already ran.`));
    this.input = undefined;
    const { block, policy } = this.run;
    return runAction(
      { block, onCompleted: policy.onCompleted, onErrored: policy.onErrored },
      input.value,
      this,
      input.parsed,
    );
  }

  emit(type: string, data: JsonObject): Promise<void> {
    // Settles with the stored event, which nobody reads: passed on without a `.then` to drop it.
    return this.run.emit(type, data) as Promise<void>;
  }

  /**
   * Loads what a block's dispatch loads. The action's own block (dispatched first) declares the resources of
   * the whole tree beneath it and loads them, as the action starts; a `lazy` single resource waits for the
   * dispatch of a block that declares it. A block outside the tree (a reaction's) declares and loads its own.
   */
  loadBlockResources(block: AnyBlock): Promise<void> | undefined {
    if (this.waitingLazy === undefined && block === this.run.block) return this.loadActionResources(block);
    const declared = Object.keys(block.resources);
    if (declared.length === 0) return undefined;
    const due = declared.filter(
      (accessor) => this.scope.definition(accessor) === undefined || this.waitingLazy?.delete(accessor),
    );
    this.scope.declare(block.resources);
    return this.scope.load(due);
  }

  private loadActionResources(root: AnyBlock): Promise<void> | undefined {
    // Walked once, at registration; a root not registered (none today) is walked here.
    const tree = this.run.flow.treeResources.get(root) ?? blockResources(root);
    const fresh = Object.keys(tree).filter((accessor) => this.scope.definition(accessor) === undefined);
    this.waitingLazy = new Set(
      fresh.filter((accessor) => isLazySingle(tree[accessor]!) && !Object.hasOwn(root.resources, accessor)),
    );
    if (fresh.length === 0) return undefined;
    this.scope.declare(tree);
    return this.scope.load(fresh.filter((accessor) => !this.waitingLazy!.has(accessor)));
  }

  contentTools(): Record<string, unknown> {
    this.tools ??= createContentTools(this.scope);
    return this.tools;
  }

  /**
   * Reactions run inside the originating turn, on the same run (context, stream, budget, signal). A reaction
   * does not re-trigger itself: a change made within its own execution (its async context, as
   * `AsyncLocalStorage` follows it) does not run it again. A change from elsewhere in the turn (another
   * `parallel` branch) does, even while it runs.
   */
  private async react(notice: { ref: string; change: string }): Promise<void> {
    for (const reaction of this.run.flow.definition.reactions) {
      if (reaction.reactTo.resource !== notice.ref) continue;
      if (!(reaction.reactTo.changes as readonly string[]).includes(notice.change)) continue;
      const within = runningReactions.getStore();
      if (within?.has(reaction)) continue;
      const stack = new Set(within);
      stack.add(reaction);
      await runningReactions.run(stack, () =>
        executeBlock(reaction.block, JSON.parse(JSON.stringify(notice)), this),
      );
    }
  }
}

/**
 * Prepares one claimed request: builds its resource scope (flow-level resources load at request start,
 * action-level ones when their block runs) and the block context. Its `execute()` then runs the block tree
 * under the action's policy (token budget, `onCompleted`, `onErrored`). `parsedBlockInput` is the block's
 * input already parsed by its `inputSchema` (a webhook validates before dispatch); else the stored input.
 */
export async function prepareAction(
  deps: RunDependencies,
  run: ClaimedRun,
  record: RequestRecord,
  parsedBlockInput: { value: unknown } | undefined,
): Promise<PreparedRun> {
  const input =
    parsedBlockInput !== undefined
      ? { value: parsedBlockInput.value, parsed: true }
      : { value: actionInput(record.input, run.block), parsed: false };
  const actionRun = new ActionRun(deps, run, record, principalOfRecord(record, run.session), input);
  await actionRun.scope.loadScopes();
  await actionRun.scope.load();
  return actionRun;
}

/**
 * JSON has no `undefined`: a call without `input` is stored as `null`. When the block's schema refuses
 * `null` but accepts an absent input (`z.object({}).optional()`), it gets `undefined`, as the caller meant.
 */
export function actionInput(stored: unknown, block: AnyBlock): unknown {
  const schema = block.inputSchema;
  if (stored !== null || !schema) return stored;
  return !schema.safeParse(null).success && schema.safeParse(undefined).success ? undefined : stored;
}
