import {
  FlowError,
  type FlowStores,
  type JsonObject,
  type RequestEvent,
  type RequestRecord,
  type SessionRecord,
  TERMINAL_REQUEST_STATUSES,
} from "@flowrt/core";
import type { AccessControl } from "../access/access-control.js";
import type { Caller } from "../access/caller.js";
import { assertAddress, assertBinding } from "../access/ownership.js";
import { principalOfRecord } from "../access/principal.js";
import { actionInput } from "../execution/action-run.js";
import { storedJson } from "../execution/blocks/json-data.js";
import { parseBlockInput } from "../execution/blocks/validate-io.js";
import type { FlowRegistry } from "../flows/registry.js";
import type { DispatchOptions } from "../host-options.js";
import type { RequestRunner } from "../requests/request-runner.js";
import type { SessionService } from "../sessions/session-service.js";

/** What an action call may say (`POST /:flowId/actions/:action`, `host.invoke`). */
export interface InvokeBody {
  input?: unknown;
  sessionId?: string;
  userId?: unknown;
  orgId?: unknown;
  parentSessionId?: string;
  metadata?: JsonObject;
}

export interface ActionServiceDependencies {
  stores: FlowStores;
  registry: FlowRegistry;
  access: AccessControl;
  sessions: SessionService;
  runner: RequestRunner;
  /** Starts a host never started, then refuses a closed one. */
  ready(): Promise<void> | undefined;
  /** Refuses a host that is not (or no longer) started. */
  assertStarted(): void;
  /** A request's events, replayed then live, to its end. */
  events(requestId: string): AsyncIterable<RequestEvent>;
}

/**
 * Actions become requests here: the address, the principal and the session binding are checked, the input
 * validated, and a `queued` request persisted (with a new session when none is named). Also the custom inbound
 * `dispatch` and the retry of a finished request.
 */
export class ActionService {
  constructor(private readonly deps: ActionServiceDependencies) {}

  /**
   * Starts an action. The address is checked against a stored session's owner before any resolver runs; the
   * principal is then resolved and bound to the session (mismatches throw at context creation, with nothing
   * written). Returns once the request is persisted.
   */
  async invoke(
    flowId: string,
    actionName: string,
    caller: Caller,
    body: InvokeBody,
  ): Promise<{ request: RequestRecord; session: SessionRecord }> {
    const { registry, access, sessions } = this.deps;
    const starting = this.deps.ready();
    if (starting) await starting;
    const flow = registry.get(flowId);
    const action = flow.definition.actions[actionName];
    if (!action || !Object.hasOwn(flow.definition.actions, actionName)) {
      throw new FlowError("action-not-found", `Flow "${flow.id}" has no action "${actionName}".`);
    }
    let session: SessionRecord | undefined;
    if (body.sessionId !== undefined) {
      session = await sessions.get(body.sessionId);
      assertAddress(registry, flow, session);
    }
    // Specification, resolution order: without any resolver `body.userId` is read (and `body.orgId`), then
    // `defaultUserId`; still no user is a 401 unless `requireUser: false`. Naming an existing session does not
    // supply one.
    const resolved = await access.principalFor(
      flow,
      caller,
      {
        action: actionName,
        input: body.input,
        ...(body.sessionId ? { sessionId: body.sessionId } : {}),
        metadata: { body: caller.body },
      },
      { userId: body.userId, orgId: body.orgId },
    );
    let { principal } = resolved;
    // Development mode: a body that names no org acts in the named session's org. Only a body naming another org
    // contradicts the binding (as on the addressed routes); a resolver must yield the org.
    if (session?.orgId !== undefined && principal.orgId === undefined && !resolved.authenticated)
      principal = { ...principal, orgId: session.orgId };
    // The input as stored, before any session is made for it: one JSON cannot hold is a 400 that leaves nothing.
    const input = storedJson(body.input, "input");
    let parent: SessionRecord | undefined;
    if (session) {
      assertBinding(session, principal);
    } else if (body.parentSessionId) {
      parent = await sessions.get(body.parentSessionId);
      // A child is its parent owner's: the user and org (binding mismatches), then the tenant (403 forbidden, as
      // the parent's addressed routes answer).
      assertBinding(parent, principal);
    }
    // The block's inputSchema runs now, as for a webhook before dispatch: an invalid input is a 400
    // `invalid-input` naming the field, with nothing stored (no session, no request). The run gets the parsed
    // value and does not parse it again (a transforming schema runs once).
    const { block } = action;
    const parsedBlockInput =
      block.inputSchema === undefined
        ? undefined
        : { value: await parseBlockInput(block, actionInput(input, block)) };
    // Checked again after the awaits above: a host that began closing meanwhile makes no session for a request
    // its runner would refuse.
    if (session === undefined) {
      this.deps.assertStarted();
      session = await sessions.create({ flow, principal, ...(parent ? { parent } : {}) });
    }
    const request = await this.deps.runner.submit({
      flow,
      session,
      principal,
      target: { type: "action", action },
      input,
      inputIsJson: true,
      ...(parsedBlockInput ? { parsedBlockInput } : {}),
      metadata: { origin: caller.source === "http" ? "action" : caller.source, ...(body.metadata ?? {}) },
      ...(caller.log ? { log: caller.log } : {}),
    });
    return { request, session };
  }

  /** Custom inbound adapters: an asserted principal wins over the resolver; `responseEmitter: null` is fire-and-forget. */
  async dispatch(
    options: DispatchOptions,
  ): Promise<{ requestId: string; sessionId: string; done: Promise<RequestRecord> }> {
    const { registry } = this.deps;
    // An instance id, else the only instance of a kind (as the webhook route does): several are ambiguous.
    const flow = registry.named(options.flowKind);
    if (!flow) {
      throw new FlowError(
        "flow-not-found",
        registry.instancesOfKind(options.flowKind).length > 1
          ? `Kind "${options.flowKind}" has several instances; dispatch to one by its instance id.`
          : `No flow of kind "${options.flowKind}" is registered.`,
      );
    }
    const caller: Caller = {
      source: options.source,
      ...(options.principal ? { principal: options.principal } : {}),
    };
    const { request, session } = await this.invoke(flow.id, options.action, caller, {
      input: options.input,
      ...(options.sessionId ? { sessionId: options.sessionId } : {}),
      ...(options.parentSessionId ? { parentSessionId: options.parentSessionId } : {}),
      metadata: { origin: options.source, ...(options.metadata ?? {}) },
    });
    const done = this.follow(request.id, options.responseEmitter);
    if (!options.responseEmitter) done.catch(() => {});
    return { requestId: request.id, sessionId: session.id, done };
  }

  /** Streams a request's events to `emit` until it ends, and returns the final record. */
  private async follow(
    requestId: string,
    emit: ((event: RequestEvent) => void) | null,
  ): Promise<RequestRecord> {
    for await (const event of this.deps.events(requestId)) emit?.(event);
    const record = await this.deps.stores.requests.get(requestId);
    if (!record) throw new FlowError("request-not-found", `No request "${requestId}" exists.`);
    return record;
  }

  /** Re-runs a finished action request with the same input; webhook-originated and scheduled requests are refused. */
  async retry(requestId: string, caller: Caller): Promise<RequestRecord> {
    const starting = this.deps.ready();
    if (starting) await starting;
    const { request, flow } = await this.deps.access.authorizeRequest(requestId, caller);
    if (request.metadata.origin === "webhook" || request.action.startsWith("webhook:")) {
      throw new FlowError(
        "not-retryable",
        "Webhook-originated requests cannot be re-run through the retry route.",
      );
    }
    if (request.metadata.origin === "scheduled" || request.action.startsWith("schedule:")) {
      // A tick runs once: a second run of it would be a tick nobody scheduled.
      throw new FlowError("not-retryable", "Scheduled requests cannot be re-run through the retry route.");
    }
    if (!TERMINAL_REQUEST_STATUSES.includes(request.status)) {
      throw new FlowError(
        "not-retryable",
        `Request "${requestId}" is still ${request.status}; abort it or wait.`,
      );
    }
    const action = flow.definition.actions[request.action];
    if (!action)
      throw new FlowError("action-not-found", `Flow "${flow.id}" no longer has "${request.action}".`);
    const session = await this.deps.sessions.get(request.sessionId);
    const principal = principalOfRecord(request, session);
    return this.deps.runner.submit({
      flow,
      session,
      principal,
      target: { type: "action", action },
      input: request.input,
      metadata: { origin: "retry", retryOf: request.id },
      ...(caller.log ? { log: caller.log } : {}),
    });
  }
}
