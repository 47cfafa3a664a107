import {
  FlowError,
  hasErrorCode,
  isFlowError,
  type JsonObject,
  type Principal,
  type RequestRecord,
  type SessionRecord,
  type WebhookBinding,
  type WebhookInboundEvent,
} from "@flowrt/core";
import type { Caller } from "../access/caller.js";
import { assertAddress, assertBinding } from "../access/ownership.js";
import { parseBlockInput } from "../execution/blocks/validate-io.js";
import type { RegisteredFlow } from "../flows/registry.js";
import type { FlowHost } from "../host.js";
import { describeError, type HostLogger } from "../logger.js";
import { actionLabel, type NewRequest } from "../requests/new-request.js";
import { assertSessionId } from "../sessions/session-service.js";
import { traceWebhookVerify } from "../telemetry/webhook-spans.js";
import { decodeUtf8 } from "../utf8.js";

/**
 * What became of a delivery, for a transport to answer: `accepted` (a request was made: it runs, or it
 * failed before running and its record says why), `ignored` (no binding for the event type, or `when` said
 * no), `acknowledged` (a handshake: `body` is the provider's answer, nothing is dispatched) or `refused` (a
 * coded error: unknown flow or provider, a signature that does not verify, a body that does not parse, a
 * host that is not serving). Anything else the pipeline meets is thrown.
 */
export type WebhookOutcome =
  | { kind: "accepted"; requestId: string }
  | { kind: "ignored"; reason: string }
  | { kind: "acknowledged"; body: unknown }
  | { kind: "refused"; error: FlowError };

function decodeOrThrow(rawBody: Uint8Array): string {
  const text = decodeUtf8(rawBody);
  if (text === null) throw new TypeError("The body is not valid UTF-8.");
  return text;
}

function defaultParse(rawBody: Uint8Array): unknown {
  return JSON.parse(decodeOrThrow(rawBody));
}

function hasOwnBinding(on: Readonly<Record<string, WebhookBinding>>, eventType: string | null) {
  return eventType !== null && Object.hasOwn(on, eventType) ? on[eventType] : undefined;
}

const refused = (error: FlowError): WebhookOutcome => ({ kind: "refused", error });

/**
 * The webhook pipeline, in the specification's order: verify, parse, extract the event type,
 * acknowledge handshakes, route through `on[eventType]`, run `when`, ensure the session, dispatch.
 * An accepted delivery never waits for the handler: the run's outcome lands on the request record.
 * No deduplication: `deliveryId` is recorded (`metadata.webhook.deliveryId`) and idempotency is the
 * action's job.
 */
export async function receiveWebhook(
  host: FlowHost,
  flowKind: string,
  provider: string,
  caller: Caller & { rawBody: Uint8Array; headers: Record<string, string | string[] | undefined> },
): Promise<WebhookOutcome> {
  // A host never started starts now; a closed one would persist a request nobody runs: refuse before reading.
  // (A started host, the usual case, goes on without a wait.)
  if (!host.started) {
    try {
      await host.ready();
    } catch (error) {
      if (hasErrorCode(error, "host-not-started") || hasErrorCode(error, "host-draining"))
        return refused(error);
      throw error;
    }
  }
  // An instance id, else the only instance of a kind.
  const flow = host.registry.named(flowKind);
  if (!flow) return refused(new FlowError("flow-not-found", `No flow "${flowKind}" receives webhooks here.`));
  const bindings = Object.hasOwn(flow.definition.webhooks, provider)
    ? flow.definition.webhooks[provider]
    : undefined;
  const definition = Object.hasOwn(host.webhookProviders, provider)
    ? host.webhookProviders[provider]
    : undefined;
  if (!bindings || !definition) {
    return refused(new FlowError("not-found", `Flow "${flow.id}" does not receive "${provider}" webhooks.`));
  }
  const { rawBody, headers } = caller;
  const log = caller.log ?? host.logger;

  let verified = false;
  try {
    verified = await traceWebhookVerify(provider, () => definition.verify(rawBody, headers));
  } catch {
    verified = false; // a verifier that throws refuses, like one that answers false
  }
  if (!verified) {
    return refused(new FlowError("webhook-verification-failed", "The webhook signature did not verify."));
  }

  let payload: unknown;
  try {
    payload = definition.parse ? await definition.parse(rawBody, headers) : defaultParse(rawBody);
  } catch {
    // The default parse reads JSON, so its failure is the API's malformed-JSON answer; a provider's own
    // parse (form bodies, XML) fails with a code of its own.
    return refused(
      definition.parse
        ? new FlowError("webhook-parse-failed", "The webhook body could not be parsed.")
        : new FlowError("invalid-json", "The webhook body is not valid JSON (UTF-8)."),
    );
  }
  // Extractors are application code over untrusted payloads: one that throws makes the delivery
  // untyped (ignored) or id-less, never a failure the provider would retry forever.
  let eventType: string | null = null;
  let deliveryId: string | undefined;
  try {
    const extracted = definition.eventType?.(payload, headers);
    eventType = typeof extracted === "string" ? extracted : null;
  } catch (error) {
    log.warn(
      {
        provider,
        error: describeError(error),
      },
      "webhook eventType extractor threw; delivery treated as untyped",
    );
  }
  try {
    const id = definition.deliveryId?.(payload, headers);
    if (typeof id === "string" && id !== "") deliveryId = id;
  } catch (error) {
    log.warn(
      {
        provider,
        error: describeError(error),
      },
      "webhook deliveryId extractor threw; delivery recorded without one",
    );
  }
  const event: WebhookInboundEvent = { provider, eventType, payload, headers, rawBody };
  if (deliveryId !== undefined) event.deliveryId = deliveryId;

  const acknowledgement = definition.acknowledge ? await definition.acknowledge(event) : null;
  if (acknowledgement !== null && acknowledgement !== undefined)
    return { kind: "acknowledged", body: acknowledgement };

  const binding = hasOwnBinding(bindings.on, eventType);
  if (!binding) return { kind: "ignored", reason: "no binding for this event type" };
  try {
    if (binding.when && !binding.when(event)) return { kind: "ignored", reason: "when" };
  } catch (error) {
    log.warn(
      {
        provider,
        eventType,
        error: describeError(error),
      },
      "webhook `when` threw; delivery ignored",
    );
    return { kind: "ignored", reason: "when threw" };
  }

  // One literal per case: a member added afterwards would move the object's members out of line.
  const webhook: JsonObject =
    deliveryId === undefined ? { provider, eventType } : { provider, eventType, deliveryId };
  const principal = await webhookPrincipal(host, flow, caller, binding, webhook);
  // Checked again after the awaits above: a host that began closing meanwhile makes no session for a delivery
  // its runner would refuse (503 `host-draining` while it drains, `host-not-started` once closed).
  if (!host.started) {
    try {
      host.assertStarted();
    } catch (error) {
      return refused(error as FlowError);
    }
  }

  const named = await ensureSession(host, flow, binding, event, principal);
  if ("refusal" in named) {
    // The named session cannot take this delivery: it is bound to another principal (taken by a client that
    // chose that id, say) or another flow instance, or the id is not a session id. A provider retrying would
    // meet the same refusal, so the delivery is a failed request in a session of its own, as a failing input
    // is. A throwing `sessionId` function or a store failure stays an error the provider retries.
    log.warn(
      {
        provider,
        eventType,
        error: describeError(named.refusal),
      },
      "webhook delivery refused by its session; recorded as a failed request",
    );
    const own = ephemeralSession(host, flow, principal);
    const failed = await host.requests.persistFailed(
      webhookRequest(flow, own, true, principal, binding, webhook, caller.log),
      named.refusal,
    );
    return { kind: "accepted", requestId: failed.id };
  }
  const request = webhookRequest(flow, named.session, named.fresh, principal, binding, webhook, caller.log);
  let input: unknown;
  try {
    input = binding.input ? await binding.input(event) : payload;
    if (binding.inputSchema) {
      // Async: a schema with async refinements makes the synchronous safeParse throw.
      const parsed = await binding.inputSchema.safeParseAsync(input);
      if (!parsed.success) {
        const issue = parsed.error.issues[0];
        const field = issue?.path.map(String).join(".") ?? "";
        throw new FlowError(
          "invalid-input",
          `Webhook input for "${eventType}" failed validation at "${field || "(input)"}": ${issue?.message}`,
          { details: field ? { field } : {} },
        );
      }
      input = parsed.data;
    } else {
      // Fall back to the block's own schema now, so a bad input is a failed request that never ran
      // (as with a binding schema), not a run that starts and fails. The run hands the parsed value to
      // the block, which does not parse it again (a transforming schema runs once).
      request.parsedBlockInput = { value: await parseBlockInput(binding.block, input) };
    }
  } catch (error) {
    const failed = await host.requests.persistFailed(request, error);
    return { kind: "accepted", requestId: failed.id };
  }
  request.input = input;
  // A payload straight from the default JSON parse, unchanged by a binding, is JSON already.
  request.inputIsJson = !definition.parse && !binding.input && !binding.inputSchema;
  let record: RequestRecord;
  try {
    record = await host.requests.submit(request);
  } catch (error) {
    // An input JSON cannot hold (a BigInt or a cycle from `input`, nesting too deep to store) is a failing
    // input like any other: a failed request that never ran, recorded without the input.
    if (!hasErrorCode(error, "invalid-input")) throw error;
    request.input = null;
    request.inputIsJson = true;
    const failed = await host.requests.persistFailed(request, error);
    return { kind: "accepted", requestId: failed.id };
  }
  // Never the payload or the headers (a signature): the delivery's ids only.
  log.debug({ provider, eventType, deliveryId, requestId: record.id }, "webhook delivery accepted");
  return { kind: "accepted", requestId: record.id };
}

/** The request a delivery makes, before its input is set. */
function webhookRequest(
  flow: RegisteredFlow,
  session: SessionRecord,
  fresh: boolean,
  principal: Principal,
  binding: WebhookBinding,
  webhook: JsonObject,
  log: HostLogger | undefined,
): NewRequest {
  const request: NewRequest = {
    flow,
    session,
    principal,
    target: { type: "webhook", binding },
    input: null,
    metadata: { origin: "webhook", webhook },
  };
  // A fresh ephemeral session is stored with the request, in one write.
  if (fresh) request.newSession = true;
  if (log !== undefined) request.log = log;
  return request;
}

/** The delivery's principal: the caller resolved as a webhook (see {@link FlowHost.principalFor}). */
async function webhookPrincipal(
  host: FlowHost,
  flow: RegisteredFlow,
  caller: Caller,
  binding: WebhookBinding,
  webhook: JsonObject,
): Promise<Principal> {
  // Copied with Object.assign: a spread plus a member makes a fresh object shape per delivery.
  const webhookCaller: Caller = Object.assign({}, caller);
  webhookCaller.source = "webhook";
  const action = actionLabel({ type: "webhook", binding });
  // The resolver sees the delivery as its request will record it (`metadata.webhook`: provider, event type,
  // delivery id); the session and the input are made after the principal, from it.
  return (await host.principalFor(flow, webhookCaller, { action, metadata: { webhook } })).principal;
}

/**
 * A delivery's own session, marked `ephemeral: true` so that retention removes it with its request; not stored
 * here: the store creates it with the delivery's request (`NewRequest.newSession`).
 */
function ephemeralSession(host: FlowHost, flow: RegisteredFlow, principal: Principal): SessionRecord {
  return host.sessions.newRecord({ flow, principal, metadata: { ephemeral: true } });
}

/**
 * A fresh ephemeral session, or the named one found or created and bound to the delivery's principal; or
 * the session's refusal of the delivery (an id that is no session id, another flow instance's session,
 * another principal's). What the application's `sessionId` function or the store throws is thrown.
 */
async function ensureSession(
  host: FlowHost,
  flow: RegisteredFlow,
  binding: WebhookBinding,
  event: WebhookInboundEvent,
  principal: { userId: string; orgId?: string; tenantId?: string },
): Promise<{ session: SessionRecord; fresh: boolean } | { refusal: FlowError }> {
  const sessionId = binding.sessionId ? await binding.sessionId(event) : undefined;
  if (sessionId === undefined || sessionId === null) {
    return { session: ephemeralSession(host, flow, principal), fresh: true };
  }
  try {
    assertSessionId(sessionId);
  } catch (error) {
    return { refusal: error as FlowError };
  }
  let session = await host.stores.sessions.get(sessionId);
  if (!session) {
    try {
      session = await host.sessions.create({ flow, principal, sessionId });
    } catch (error) {
      // Two deliveries raced to create it: the loser uses the winner's session, then the binding checks apply.
      session = await host.stores.sessions.get(sessionId);
      if (!session) throw error;
    }
  }
  // A session being deleted takes nothing more: it reads as not found, as on every route.
  if (session.deleting) {
    return { refusal: new FlowError("session-not-found", `No session "${sessionId}" exists.`) };
  }
  try {
    assertAddress(host.registry, flow, session);
    assertBinding(session, principal);
  } catch (error) {
    if (!isFlowError(error)) throw error;
    return { refusal: error };
  }
  return { session, fresh: false };
}
