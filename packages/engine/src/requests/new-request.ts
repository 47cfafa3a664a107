import {
  type ActionDefinition,
  type FlowError,
  isFlowError,
  type JsonObject,
  type JsonValue,
  type Principal,
  type RequestError,
  type RequestRecord,
  type SessionRecord,
  type WebhookBinding,
} from "@flowrt/core";
import { jsonRefusal, storedJson } from "../execution/blocks/json-data.js";
import type { RegisteredFlow } from "../flows/registry.js";
import { isoNow } from "./clock.js";
import { newId } from "./new-id.js";

/** What a request runs: an action, or a webhook binding. */
export type RequestTarget =
  | { type: "action"; action: ActionDefinition }
  | { type: "webhook"; binding: WebhookBinding };

export interface NewRequest {
  flow: RegisteredFlow;
  session: SessionRecord;
  principal: Principal;
  target: RequestTarget;
  input: unknown;
  /**
   * The input is already a JSON value (fresh from `JSON.parse`, nothing else holds it): stored as is, without the
   * JSON round trip that turns any other value into JSON.
   */
  inputIsJson?: boolean;
  /**
   * The block's input as its own `inputSchema` already parsed it (a webhook validates before dispatch): a run
   * started here hands it to the block, which then skips that parse. `input` is still what is stored.
   */
  parsedBlockInput?: { value: unknown };
  metadata?: JsonObject;
}

/** Webhook labels, made once per binding: a label built per request would be a fresh cons string each time. */
const webhookLabels = new WeakMap<WebhookBinding, string>();

/** The stored action label: the action's name, or `webhook:<provider>:<eventType>`. */
export function actionLabel(target: RequestTarget): string {
  if (target.type === "action") return target.action.name;
  const { binding } = target;
  let label = webhookLabels.get(binding);
  if (label === undefined) {
    label = `webhook:${binding.provider}:${binding.eventType}`;
    webhookLabels.set(binding, label);
  }
  return label;
}

/** What a request record keeps of a failure: a coded error's code, message and retryability; else `internal-error`. */
export function toRequestError(error: unknown): RequestError {
  if (isFlowError(error)) return { code: error.code, message: error.message, retryable: error.retryable };
  // Application errors keep their message on the record (its owner reads it); stacks never leave the host.
  const message = error instanceof Error ? error.message : String(error);
  return { code: "internal-error", message, retryable: false };
}

/** The record of a new request, `queued` (or `failed` with its error, when it failed before it could run). */
export function requestRecord(
  request: NewRequest,
  status: "queued" | "failed",
  error?: RequestError,
): RequestRecord {
  const policy = request.target.type === "action" ? request.target.action : request.target.binding;
  const now = isoNow();
  const record: RequestRecord = {
    id: newId(),
    sessionId: request.session.id,
    flowId: request.flow.id,
    flowKind: request.flow.kind,
    action: actionLabel(request.target),
    userId: request.principal.userId,
    status,
    input: request.inputIsJson === true ? (request.input as JsonValue) : storedJson(request.input, "input"),
    metadata: request.metadata ? { ...request.metadata } : {},
    durable: policy.durable,
    version: 1,
    createdAt: now,
  };
  if (request.principal.orgId) record.orgId = request.principal.orgId;
  if (error) {
    record.error = error;
    record.completedAt = now;
  }
  return record;
}

/**
 * Why a store refused to create `record`, when the cause is its input: a JSON value handed over as is
 * ({@link NewRequest.inputIsJson}) may still be nested too deeply for the store's serializer. Asked only after a
 * refusal, so a stored request pays nothing for it; a store's own failure is not reclassified.
 */
export function inputRefusal(request: NewRequest, record: RequestRecord): FlowError | undefined {
  return request.inputIsJson === true ? jsonRefusal(record.input, "input") : undefined;
}
