import { randomUUID } from "node:crypto";
import {
  type ActionDefinition,
  ERROR_CODES,
  type FlowError,
  isFlowError,
  type JsonObject,
  type JsonValue,
  type Principal,
  type RequestError,
  type RequestRecord,
  type ScheduleDefinition,
  type SessionRecord,
  type WebhookBinding,
} from "@flowrt/core";
import { jsonRefusal, storedJson } from "../execution/blocks/json-data.js";
import type { RegisteredFlow } from "../flows/registry.js";
import type { HostLogger } from "../logger.js";
import { isoNow } from "./clock.js";
import { newId } from "./new-id.js";

/** What a request runs: an action, a webhook binding, or a schedule. */
export type RequestTarget =
  | { type: "action"; action: ActionDefinition }
  | { type: "webhook"; binding: WebhookBinding }
  | { type: "schedule"; schedule: ScheduleDefinition };

export interface NewRequest {
  /** The request's id when the caller chose it beforehand (a schedule's tick records it as fired first). @default a new id */
  id?: string;
  flow: RegisteredFlow;
  session: SessionRecord;
  /**
   * `session` is the request's own and not stored yet (a webhook delivery's ephemeral session): the store creates
   * it with the request, in one write.
   */
  newSession?: boolean;
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
  /** The logger of the call that made the request (an HTTP request's, bound to its id): the run's lines carry it. */
  log?: HostLogger;
}

/** Webhook labels, made once per binding: a label built per request would be a fresh cons string each time. */
const webhookLabels = new WeakMap<WebhookBinding, string>();

/** The stored action label: the action's name, `webhook:<provider>:<eventType>` or `schedule:<name>`. */
export function actionLabel(target: RequestTarget): string {
  if (target.type === "action") return target.action.name;
  if (target.type === "schedule") return `schedule:${target.schedule.name}`;
  const { binding } = target;
  let label = webhookLabels.get(binding);
  if (label === undefined) {
    label = `webhook:${binding.provider}:${binding.eventType}`;
    webhookLabels.set(binding, label);
  }
  return label;
}

/**
 * Codes whose message is the server's, not the client's: an application's own `FlowError("internal-error", …)` and a
 * store's failure (which may name a file path or the database's words). Their records keep the catalogue's text.
 */
const SERVER_SIDE_CODES: ReadonlySet<string> = new Set(["internal-error", "store-error"]);

/** Whether `error` reaches clients as it is: a flowrt error of a code meant for them. */
export function isClientError(error: unknown): error is FlowError {
  return isFlowError(error) && !SERVER_SIDE_CODES.has(error.code);
}

/** A new error id: what a client quotes and an operator finds in the log. */
export function newErrorId(): string {
  return randomUUID();
}

/**
 * What a request record keeps of a failure: a client error's code, message and retryability as they are; anything
 * else (an application's `Error`, a store's failure) is `internal-error` (a store's `store-error` keeps its code)
 * with the catalogue's text and an `errorId`, unless `expose` (the host's `exposeErrors`) keeps the message. The
 * full error goes to the log with the same `errorId` (`RequestRunner`).
 */
export function toRequestError(error: unknown, expose = false): RequestError {
  if (isClientError(error)) return { code: error.code, message: error.message, retryable: error.retryable };
  const code = isFlowError(error) ? error.code : "internal-error";
  const message = expose
    ? error instanceof Error
      ? error.message
      : String(error)
    : ((ERROR_CODES as Record<string, string>)[code] ?? ERROR_CODES["internal-error"]);
  return { code, message, retryable: isFlowError(error) && error.retryable, errorId: newErrorId() };
}

/** The record of a new request, `queued` (or `failed` with its error, when it failed before it could run). */
export function requestRecord(
  request: NewRequest,
  status: "queued" | "failed",
  error?: RequestError,
): RequestRecord {
  const { target } = request;
  const policy =
    target.type === "action" ? target.action : target.type === "webhook" ? target.binding : target.schedule;
  const now = isoNow();
  const record: RequestRecord = {
    id: request.id ?? newId(),
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
