import { STATUS_BY_CODE } from "./problem.js";
import { ANY_OBJECT } from "./route-doc.js";

/** A reference to a component schema. */
export const schemaRef = (name: string) => ({ $ref: `#/components/schemas/${name}` });

/**
 * The problem answers every operation shares, by status: one component each (`#/components/responses/NotFound`),
 * all of them `application/problem+json` with the `Problem` schema. `default` is any other problem (405 for another
 * method, 500 with an `errorId`, 503 from a store).
 */
export const PROBLEM_RESPONSES: Readonly<Record<string, { name: string; description: string }>> = {
  400: {
    name: "BadRequest",
    description: "The request is malformed (`invalid-json`, `invalid-request`, `invalid-input`...).",
  },
  401: {
    name: "Unauthorized",
    description:
      "No credential the resolver accepts (`unauthorized`), or it failed (`principal-resolution-failed`).",
  },
  403: { name: "Forbidden", description: "The caller does not own what it addresses, or may not do this." },
  404: { name: "NotFound", description: "Nothing of that id here, for this caller." },
  409: {
    name: "Conflict",
    description:
      "The state does not allow it now (`request-finished`, `topic-exists`, `wrong-instance-session`...).",
  },
  413: {
    name: "PayloadTooLarge",
    description: "The body is over the host's limit (`payload-too-large`, with `limit`).",
  },
  415: {
    name: "UnsupportedMediaType",
    description: "A cross-site write that is not JSON (`unsupported-media-type`).",
  },
  503: {
    name: "ServiceUnavailable",
    description: "The host is not started, is draining, or its store failed (`retryable`).",
  },
  default: {
    name: "Problem",
    description: "Any other problem: 405 for another method, 500 `internal-error` with an `errorId`.",
  },
};

/** The problem answer of a status, by reference (`default` for a status without its own component). */
export function problemRef(status: number | "default"): { $ref: string } {
  const known = PROBLEM_RESPONSES[String(status)] ?? PROBLEM_RESPONSES.default!;
  return { $ref: `#/components/responses/${known.name}` };
}

/** The `Problem` schema: RFC 9457 problem details with flowrt's stable `code` and its public extensions. */
export const PROBLEM_SCHEMA = {
  type: "object",
  required: ["type", "title", "status", "code", "detail"],
  properties: {
    type: { type: "string", const: "about:blank" },
    title: { type: "string", description: "The status's reason phrase." },
    status: { type: "integer", minimum: 400, maximum: 599 },
    code: {
      type: "string",
      enum: Object.keys(STATUS_BY_CODE),
      description: "Stable kebab-case code from flowrt's error catalogue: what a client branches on.",
    },
    detail: { type: "string" },
    errorId: {
      type: "string",
      description: "A server-side failure's id: the host logged the full error under it.",
    },
    field: { type: "string", description: "The body field a 400 is about." },
    retryable: { type: "boolean", description: "The same request may succeed later." },
    limit: { type: "integer", description: "The body limit a 413 refers to, in bytes." },
    allowed: { type: "array", items: { type: "string" }, description: "The methods a 405 allows." },
    sessionId: { type: "string" },
    requestId: { type: "string" },
  },
};

/** `202 { requestId, sessionId }`: an action (or a retry) was accepted; its run goes on. */
export const ACTION_ACCEPTED_SCHEMA = {
  type: "object",
  required: ["requestId", "sessionId"],
  properties: {
    requestId: {
      type: "string",
      description:
        "The flowrt request: follow it at /requests/{requestId}/stream, read it at /requests/{requestId}.",
    },
    sessionId: {
      type: "string",
      description: "The session it runs in (a new one when the body named none).",
    },
  },
};

/** What a request record's `error` holds (the message of a server-side failure is the catalogue's text). */
export const REQUEST_ERROR_SCHEMA = {
  type: "object",
  required: ["code", "message"],
  properties: {
    code: { type: "string" },
    message: { type: "string" },
    retryable: { type: "boolean" },
    errorId: { type: "string", description: "A server-side failure's id in the host's log." },
  },
};

/**
 * A request as `GET /requests/{requestId}` shows it. `output` is the action's output once it completed: one of
 * the `…Output` schemas of the actions (`outputs`), or, where a run's block declares no output schema, any JSON.
 */
export function requestSchema(outputs: readonly object[], anyOutput: boolean) {
  const output = { description: "The run's output, once completed (the action's outputSchema)." };
  return {
    type: "object",
    required: ["id", "sessionId", "flowId", "action", "status", "userId", "createdAt", "metadata"],
    properties: {
      id: { type: "string" },
      sessionId: { type: "string" },
      flowId: { type: "string" },
      action: {
        type: "string",
        description: "The action, or `webhook:<provider>:<eventType>` for a webhook run.",
      },
      status: { type: "string", enum: ["queued", "running", "completed", "failed", "aborted"] },
      userId: { type: "string" },
      orgId: { type: "string" },
      output:
        outputs.length === 0
          ? output
          : anyOutput
            ? {
                ...output,
                anyOf: [...outputs, { description: "A run whose block declares no outputSchema." }],
              }
            : { ...output, ...(outputs.length === 1 ? outputs[0] : { anyOf: outputs }) },
      error: schemaRef("RequestError"),
      createdAt: { type: "string", format: "date-time" },
      completedAt: { type: "string", format: "date-time" },
      metadata: ANY_OBJECT,
    },
  };
}

/** The bodies of the resource routes that write an item. */
export const ITEM_BODY_SCHEMAS = {
  ItemCreate: {
    type: "object",
    required: ["topic"],
    properties: { topic: { type: "string" }, content: { type: "string" } },
  },
  ItemContent: {
    type: "object",
    required: ["content"],
    properties: { content: { type: "string" } },
  },
};

/** A session as the API shows it (`sessionView`). */
export const SESSION_SCHEMA = {
  type: "object",
  required: ["id", "flowId", "flowKind", "userId", "metadata", "createdAt"],
  properties: {
    id: { type: "string" },
    flowId: {
      type: ["string", "null"],
      description: "The owning flow instance; null when none was recorded (its kind's instance governs it).",
    },
    flowKind: { type: "string" },
    userId: { type: "string" },
    orgId: { type: "string" },
    parentSessionId: { type: "string" },
    title: { type: "string" },
    metadata: ANY_OBJECT,
    createdAt: { type: "string", format: "date-time" },
  },
};

/** The operations' groups, in the order a viewer lists them. */
export const TAGS: readonly { name: string; description: string }[] = [
  { name: "Actions", description: "Run a flow's actions: 202 with the request, or its event stream inline." },
  { name: "Requests", description: "Follow, read, abort and re-run the requests actions started." },
  { name: "Sessions", description: "The caller's sessions: create, read, change, delete, and their state." },
  {
    name: "Resources",
    description: "A session's resources and collection items, as the flow lets clients see them.",
  },
  { name: "Schedules", description: "The scheduled runs that act as the caller, with their next tick." },
  { name: "Webhooks", description: "Signed deliveries from webhook providers." },
  { name: "Discovery", description: "The flows this host serves, and this document." },
  { name: "Health", description: "Liveness and readiness probes." },
];
