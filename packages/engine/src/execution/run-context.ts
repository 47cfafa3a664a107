import type { BlockContext, BlockLogger, Principal } from "@flowrt/core";
import type { RegisteredFlow } from "../flows/registry.js";
import type { ResourceScope } from "../resources/index.js";
import type { ScopeStateHandle } from "../resources/scope-state.js";
import type { EmittedEvent } from "./emitted-event.js";
import type { RunSessionHandle } from "./run-session-handle.js";

/** What a {@link RunContext} reads its run's parts from. */
export interface RunContextSource {
  readonly scope: ResourceScope;
  readonly signal: AbortSignal;
  readonly log: BlockLogger;
  readonly contextEmit: (event: EmittedEvent) => Promise<void>;
  readonly sessionHandle: RunSessionHandle;
}

/** Where {@link RunContext}'s accessors find their run. */
const RUN = Symbol("flowrt.actionRun");

/**
 * A block's `ctx`. Its identifiers are own data members; `session`, `user`, `org`, `resources`, `signal`, `log`
 * and `emit` are accessors on the prototype, so what they hand out is built on first read (most runs read few of
 * them) and a run waiting on its block holds none of it unread. Destructuring (`const { session, emit } = ctx`)
 * reads them as usual; a spread (`{ ...ctx }`) copies only the own members, as with Express's `req`.
 */
export class RunContext implements BlockContext {
  readonly [RUN]: RunContextSource;
  readonly principal: Principal;
  readonly sessionId: string;
  readonly requestId: string;
  readonly idempotencyKey: string;
  readonly flowId: string;
  readonly flowKind: string;

  constructor(
    run: RunContextSource,
    principal: Principal,
    sessionId: string,
    requestId: string,
    flow: RegisteredFlow,
  ) {
    this[RUN] = run;
    this.principal = principal;
    this.sessionId = sessionId;
    this.requestId = requestId;
    this.idempotencyKey = `flowrt:${requestId}`;
    this.flowId = flow.id;
    this.flowKind = flow.kind;
  }

  get session(): RunSessionHandle {
    return this[RUN].sessionHandle;
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
  get emit(): (event: EmittedEvent) => Promise<void> {
    return this[RUN].contextEmit;
  }
}
