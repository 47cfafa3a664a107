import { AsyncLocalStorage } from "node:async_hooks";
import {
  type AnyBlock,
  type AnyResourceDefinition,
  type BlockContext,
  type BlockLogger,
  FlowError,
  isSingleResourceDefinition,
  type JsonObject,
  type Principal,
  type ReactionDefinition,
  type RequestRecord,
} from "@flowrt/core";
import { executeBlock } from "./blocks/execute-block.js";
import { type BlockRun, createTokenBudget, runAction, type TokenBudget } from "./blocks/index.js";
import { jsonRefusal } from "./blocks/json-data.js";
import { isEngineEventType } from "../requests/event-types.js";
import {
  createContentTools,
  createResourceScope,
  type ResourceRuntimeContext,
  type ResourceScope,
} from "../resources/index.js";
import type { ScopeStateHandle } from "../resources/scope-state.js";
import { isPlainObject } from "../state/json.js";
import type { FlowHost } from "../host.js";
import type { HostLogger } from "../logger.js";
import { principalOfRecord } from "../access/principal.js";
import { blockResources, type RegisteredFlow } from "../flows/registry.js";
import type { ClaimedRun, PreparedRun } from "../requests/request-runner.js";

/** The reactions running in the current async context: a change made by one of them does not run it again. */
const runningReactions = new AsyncLocalStorage<ReadonlySet<ReactionDefinition>>();

function isLazySingle(def: AnyResourceDefinition): boolean {
  return isSingleResourceDefinition(def) && def.prefetchMode === "lazy";
}

/** What `ctx.emit` takes: `{ type, data? }`, or the payload's fields beside `type`. */
type EmittedEvent = { type: string; data?: JsonObject } | ({ type: string } & JsonObject);

/** Whether `text` holds a C0 control character or DEL (a line break among them). */
function hasControlCharacter(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 0x20 || code === 0x7f) return true;
  }
  return false;
}

/** A plain object (not an array, not a class instance) that JSON can hold. */
function isJsonObject(value: unknown): boolean {
  return isPlainObject(value) && jsonRefusal(value, "input") === undefined;
}

/** A logger that stamps every line with the request it belongs to. */
export function requestLogger(logger: HostLogger, fields: Record<string, unknown>): BlockLogger {
  const at =
    (level: keyof HostLogger) =>
    (message: string, data?: Record<string, unknown>): void =>
      logger[level](message, { ...fields, ...data });
  // Callable (at the info level, as a collection hook's `ctx.log(message)`) and with one method per level.
  return Object.assign(at("info"), {
    debug: at("debug"),
    info: at("info"),
    warn: at("warn"),
    error: at("error"),
  });
}

/** Where {@link RunContext}'s accessors find their run. */
const RUN = Symbol("flowrt.actionRun");

/**
 * A block's `ctx`. Its identifiers are own data members; `session`, `user`, `org`, `resources`, `signal`,
 * `log` and `emit` are accessors on the prototype, so what they hand out is built on first read (most runs
 * read few of them) and a run waiting on its block holds none of it unread. Destructuring
 * (`const { session, emit } = ctx`) reads them as usual; a spread (`{ ...ctx }`) copies only the own
 * members, as with Express's `req`.
 */
class RunContext {
  readonly [RUN]: ActionRun;
  readonly principal: Principal;
  readonly sessionId: string;
  readonly requestId: string;
  readonly flowId: string;
  readonly flowKind: string;

  constructor(
    run: ActionRun,
    principal: Principal,
    sessionId: string,
    requestId: string,
    flow: RegisteredFlow,
  ) {
    this[RUN] = run;
    this.principal = principal;
    this.sessionId = sessionId;
    this.requestId = requestId;
    this.flowId = flow.id;
    this.flowKind = flow.kind;
  }

  get session(): ScopeStateHandle {
    return this[RUN].scope.scopes.session;
  }

  get user(): ScopeStateHandle {
    return this[RUN].scope.scopes.user;
  }

  get org(): ScopeStateHandle {
    return this[RUN].scope.scopes.org;
  }

  get resources(): Record<string, any> {
    return this[RUN].scope.handles;
  }

  get signal(): AbortSignal {
    return this[RUN].signal;
  }

  get log(): BlockLogger {
    return this[RUN].log;
  }

  /** A function of its own (made on first read), so that `const { emit } = ctx` works without `this`. */
  get emit(): (event: { type: string; data?: JsonObject }) => Promise<void> {
    return this[RUN].contextEmit;
  }
}

/**
 * One action run: what the block tree sees ({@link BlockRun}) and what its resources see (the
 * {@link ResourceRuntimeContext}), in one object whose methods and getters stand in for per-run
 * closures; the logger and the abort signal are made on first use (most runs use neither).
 */
class ActionRun implements BlockRun, ResourceRuntimeContext, PreparedRun {
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
  private emitter: ((event: { type: string; data?: JsonObject }) => Promise<void>) | undefined;
  private tools: Record<string, unknown> | undefined;
  /** Lazy single resources of the action's tree not loaded yet; set when the action's block dispatches. */
  private waitingLazy: Set<string> | undefined;
  /** The block's input until {@link execute} hands it to the block. */
  private input: { value: unknown; parsed: boolean } | undefined;

  constructor(
    private readonly host: FlowHost,
    private readonly run: ClaimedRun,
    record: RequestRecord,
    principal: Principal,
    input: { value: unknown; parsed: boolean },
  ) {
    this.input = input;
    const { flow, session, policy } = run;
    this.budget = createTokenBudget(policy.tokenBudget);
    this.stores = host.stores;
    this.flow = flow.definition;
    this.session = session;
    this.principal = principal;
    this.requestId = record.id;
    if (flow.definition.reactions.length > 0) this.runReaction = (notice) => this.react(notice);
    this.scope = createResourceScope(this, flow.flowResources);
    this.ctx = new RunContext(this, principal, session.id, record.id, flow) as unknown as BlockContext;
  }

  /** `ctx.emit`. */
  get contextEmit(): (event: EmittedEvent) => Promise<void> {
    this.emitter ??= (event) => this.emitOwn(event);
    return this.emitter;
  }

  /**
   * An event of the application's own: a type the engine writes itself (`request.*`, `block.*`,
   * `text.delta`, …) is refused with `reserved-event-type` and nothing is appended.
   */
  private emitOwn(event: EmittedEvent): Promise<void> {
    if (typeof event !== "object" || event === null || Array.isArray(event)) {
      return Promise.reject(
        new FlowError(
          "invalid-request",
          "ctx.emit takes an event object: { type, data? }. Nothing was appended.",
        ),
      );
    }
    const {
      type,
      data: given,
      ...fields
    } = event as { type: unknown; data?: unknown } & Record<string, unknown>;
    // A line break in the type would end the stream's `event:` line and let the rest pose as fields of its own.
    if (typeof type !== "string" || type === "" || hasControlCharacter(type)) {
      return Promise.reject(
        new FlowError(
          "invalid-request",
          "ctx.emit needs an event type: a non-empty string without control characters (no line breaks). Nothing was appended.",
        ),
      );
    }
    // The payload is `data`, or the event's other fields (`{ type, pct }`), never both.
    const hasFields = Object.keys(fields).length > 0;
    if (given !== undefined && hasFields) {
      return Promise.reject(
        new FlowError(
          "invalid-request",
          `ctx.emit of "${type}": give the payload as data or as fields beside type (${Object.keys(fields).join(", ")}), not both. Nothing was appended.`,
        ),
      );
    }
    const data = given !== undefined ? given : hasFields ? fields : undefined;
    if (data !== undefined && !isJsonObject(data)) {
      return Promise.reject(
        new FlowError(
          "invalid-request",
          `ctx.emit of "${type}": data must be a JSON object (a plain object JSON can hold: no BigInt, no cycle). Nothing was appended.`,
        ),
      );
    }
    if (isEngineEventType(type)) {
      return Promise.reject(
        new FlowError(
          "reserved-event-type",
          `ctx.emit refused "${type}": the engine writes request.*, block.*, text.delta, tool.call, tool.result, state_change and resource_change itself; give the event a type of your own (e.g. "progress"). Nothing was appended.`,
          { details: { type } },
        ),
      );
    }
    return this.emit(type, (data as JsonObject | undefined) ?? {});
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
    this.logger ??= requestLogger(this.host.logger, {
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
  host: FlowHost,
  run: ClaimedRun,
  record: RequestRecord,
  parsedBlockInput: { value: unknown } | undefined,
): Promise<PreparedRun> {
  const input =
    parsedBlockInput !== undefined
      ? { value: parsedBlockInput.value, parsed: true }
      : { value: actionInput(record.input, run.block), parsed: false };
  const actionRun = new ActionRun(host, run, record, principalOfRecord(record, run.session), input);
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
