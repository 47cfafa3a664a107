import type {
  AnyBlock,
  BlockContext,
  BlockLogger,
  JsonObject,
  Principal,
  ReactionDefinition,
} from "@flowrt/core";
import { executeBlock } from "../blocks/execute-block.js";
import { type BlockRun, createTokenBudget, runAction, type TokenBudget } from "../blocks/index.js";
import {
  createContentTools,
  createResourceScope,
  type ResourceRuntimeContext,
  type ResourceScope,
} from "../resources/index.js";
import type { FlowHost } from "./flow-host.js";
import type { HostLogger } from "./logger.js";
import { principalOfRecord } from "./principal.js";
import type { ClaimedRun } from "./request-runner.js";

/** A logger that stamps every line with the request it belongs to. */
export function requestLogger(logger: HostLogger, fields: Record<string, unknown>): BlockLogger {
  return {
    debug: (message, data) => logger.debug(message, { ...fields, ...data }),
    info: (message, data) => logger.info(message, { ...fields, ...data }),
    warn: (message, data) => logger.warn(message, { ...fields, ...data }),
    error: (message, data) => logger.error(message, { ...fields, ...data }),
  };
}

/** Where the shared accessors below find the run of a block context. */
const RUN = Symbol("flowrt.actionRun");

/**
 * `ctx.signal` and `ctx.log`: made on first read (most runs read neither), yet own enumerable members of
 * the context as before. One getter each for every run, reading the run through a symbol-keyed member
 * (no closures per run), installed with `Object.defineProperty`: an object literal with `get` members
 * is built in slow dictionary mode, while this keeps the context a fast object of one shared shape.
 */
const lazySignal: PropertyDescriptor = {
  get(this: { [RUN]: ActionRun }) {
    return this[RUN].signal;
  },
  enumerable: true,
  configurable: true,
};
const lazyLog: PropertyDescriptor = {
  get(this: { [RUN]: ActionRun }) {
    return this[RUN].log;
  },
  enumerable: true,
  configurable: true,
};

/**
 * One action run: what the block tree sees ({@link BlockRun}) and what its resources see (the
 * {@link ResourceRuntimeContext}), in one object whose methods and getters stand in for per-run
 * closures; the logger and the abort signal are made on first use (most runs use neither).
 */
class ActionRun implements BlockRun, ResourceRuntimeContext {
  readonly ctx: BlockContext;
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
  private tools: Record<string, unknown> | undefined;
  /** Reactions running now: a reaction does not re-trigger itself while it runs. */
  private reacting: Set<ReactionDefinition> | undefined;

  constructor(
    private readonly host: FlowHost,
    private readonly run: ClaimedRun,
    principal: Principal,
  ) {
    const { record, flow, session, policy } = run;
    this.budget = createTokenBudget(policy.tokenBudget);
    this.stores = host.stores;
    this.flow = flow.definition;
    this.session = session;
    this.principal = principal;
    this.requestId = record.id;
    if (flow.definition.reactions.length > 0) this.runReaction = (notice) => this.react(notice);
    this.scope = createResourceScope(this, flow.flowResources);
    const scopes = this.scope.scopes;
    const ctx = {
      [RUN]: this,
      session: scopes.session,
      user: scopes.user,
      org: scopes.org,
      resources: this.scope.handles,
      principal,
      sessionId: session.id,
      requestId: record.id,
      flowId: flow.id,
      flowKind: flow.kind,
      emit: (event: { type: string; data?: unknown }) =>
        run.emit(event.type, (event.data ?? {}) as JsonObject) as Promise<void>,
    };
    Object.defineProperty(ctx, "signal", lazySignal);
    Object.defineProperty(ctx, "log", lazyLog);
    this.ctx = ctx as unknown as BlockContext;
  }

  get signal(): AbortSignal {
    return this.run.abort.signal;
  }

  get aborted(): boolean {
    return this.run.abort.aborted;
  }

  get log(): BlockLogger {
    this.logger ??= requestLogger(this.host.logger, {
      requestId: this.run.record.id,
      flowId: this.run.flow.id,
    });
    return this.logger;
  }

  emit(type: string, data: JsonObject): Promise<void> {
    // Settles with the stored event, which nobody reads: passed on without a `.then` to drop it.
    return this.run.emit(type, data) as Promise<void>;
  }

  loadBlockResources(block: AnyBlock): Promise<void> {
    const declared = Object.keys(block.resources);
    const fresh = declared.filter((accessor) => this.scope.definition(accessor) === undefined);
    this.scope.declare(block.resources);
    return this.scope.load(fresh);
  }

  contentTools(): Record<string, unknown> {
    this.tools ??= createContentTools(this.scope);
    return this.tools;
  }

  /** Reactions run inside the originating turn, on the same run (context, stream, budget, signal). */
  private async react(notice: { ref: string; change: string }): Promise<void> {
    for (const reaction of this.run.flow.definition.reactions) {
      if (reaction.reactTo.resource !== notice.ref) continue;
      if (!(reaction.reactTo.changes as readonly string[]).includes(notice.change)) continue;
      this.reacting ??= new Set();
      if (this.reacting.has(reaction)) continue;
      this.reacting.add(reaction);
      try {
        await executeBlock(reaction.block, JSON.parse(JSON.stringify(notice)), this);
      } finally {
        this.reacting.delete(reaction);
      }
    }
  }
}

/**
 * Runs one claimed request: builds its resource scope (flow-level resources load at request start,
 * action-level ones when their block runs), the block context, and executes the block tree under the
 * action's policy (token budget, `onCompleted`, `onErrored`).
 */
export async function executeAction(host: FlowHost, run: ClaimedRun): Promise<unknown> {
  const { record, session, block, policy } = run;
  const actionRun = new ActionRun(host, run, principalOfRecord(record, session));
  await actionRun.scope.loadScopes();
  await actionRun.scope.load();
  const parsedBlockInput = run.takeParsedBlockInput();
  return runAction(
    { block, onCompleted: policy.onCompleted, onErrored: policy.onErrored },
    parsedBlockInput !== undefined ? parsedBlockInput.value : actionInput(record.input, block),
    actionRun,
    parsedBlockInput !== undefined,
  );
}

/**
 * JSON has no `undefined`: a call without `input` is stored as `null`. When the block's schema refuses
 * `null` but accepts an absent input (`z.object({}).optional()`), it gets `undefined`, as the caller meant.
 */
function actionInput(stored: unknown, block: AnyBlock): unknown {
  const schema = block.inputSchema;
  if (stored !== null || !schema) return stored;
  return !schema.safeParse(null).success && schema.safeParse(undefined).success ? undefined : stored;
}
