import type { FlowStores, Principal, SessionRecord } from "@flowrt/core";
import { principalOfRecord } from "../access/principal.js";
import type { RegisteredFlow } from "../flows/registry.js";
import type { HostLogger } from "../logger.js";
import type { ResourceRuntimeContext } from "../resources/index.js";
import { requestLogger } from "./request-logger.js";

/** Outside a request there is no stream to append to: every emit answers the same settled promise. */
const settled: Promise<void> = Promise.resolve();
const noEmit = (): Promise<void> => settled;

/**
 * The resource context of one client call (an HTTP read or write of a session's resources): the session owner's
 * identity, no request, no stream. The logger and the signal are built on first use: most client calls never log
 * or hand a signal on.
 */
export class ClientCallContext implements ResourceRuntimeContext {
  readonly stores: FlowStores;
  readonly flow: ResourceRuntimeContext["flow"];
  readonly session: SessionRecord;
  readonly principal: Principal;
  readonly requestId = null;
  readonly emit = noEmit;
  readonly #flowId: string;
  readonly #logger: HostLogger;
  #log: ResourceRuntimeContext["log"] | undefined;
  #signal: AbortSignal | undefined;

  constructor(stores: FlowStores, flow: RegisteredFlow, session: SessionRecord, logger: HostLogger) {
    this.stores = stores;
    this.flow = flow.definition;
    this.session = session;
    this.principal = principalOfRecord(session, session);
    this.#flowId = flow.id;
    this.#logger = logger;
  }

  get signal(): AbortSignal {
    this.#signal ??= new AbortController().signal;
    return this.#signal;
  }

  get log(): ResourceRuntimeContext["log"] {
    this.#log ??= requestLogger(this.#logger, { sessionId: this.session.id, flowId: this.#flowId });
    return this.#log;
  }
}
