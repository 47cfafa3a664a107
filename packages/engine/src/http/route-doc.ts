import type { RegisteredFlow } from "../flows/registry.js";
import type { FlowHost } from "../host.js";

/**
 * How a route knows its caller, for the operation's `security`: `principal` runs the governing flow's resolver
 * (401 without a credential where the flow requires a user), `optional-principal` runs it but never refuses
 * (listings: an unidentified caller gets an empty list), `none` runs no resolver (probes, discovery), `signature`
 * verifies the body's signature instead (webhooks).
 */
export type RouteAuth = "principal" | "optional-principal" | "none" | "signature";

/**
 * One operation of a route that is documented once per flow (or per action, per webhook provider) rather than
 * once: its path parameters filled in, its own operation id, and what differs from the route's own doc.
 */
export interface RouteOperation {
  /** The values of path parameters (`{ flowId: "notebook", action: "addNote" }`), no longer parameters. */
  params: Record<string, string>;
  operationId: string;
  summary: string;
  description?: string;
  requestBody?: object;
  /** Replaces the route's answers of these statuses. */
  responses?: Record<number, object>;
  /** The flow whose resolver governs the operation (its security follows that flow's `authentication`). */
  flow: RegisteredFlow;
  /** Component schemas the operation refers to (`#/components/schemas/<name>`). */
  schemas?: Record<string, object>;
  /**
   * The schema of what the run answers as `output` on its request record (a reference to one of `schemas`);
   * `null` for a run whose block declares none.
   */
  output?: object | null;
}

/** Makes `candidate` an operation id no other operation of the document has (`runA2` after `runA`). */
export type UniqueOperationId = (candidate: string) => string;

/**
 * What a route tells the OpenAPI document about itself, written beside its handler so that the document
 * is generated from the route table and never lists a route or a status a second time.
 */
export interface RouteDoc {
  /** Stable and readable (`getSession`, `listSessions`); what a generated client names its method. */
  operationId: string;
  summary: string;
  description?: string;
  auth: RouteAuth;
  /** The group a documentation viewer lists the operation under (one per feature: `Sessions`, `Actions`...). */
  tag?: string;
  /**
   * The route's operations for this host, when it is documented per flow (`POST /notebook/actions/addNote`)
   * rather than with its path parameters: an action's input schema is the action's own.
   */
  operations?: (host: FlowHost, unique: UniqueOperationId) => RouteOperation[];
  /** Descriptions of path parameters, by name (the parameters themselves come from the route's path). */
  pathParams?: Record<string, string>;
  /** Query and header parameters (OpenAPI parameter objects). */
  parameters?: object[];
  /** The OpenAPI request body object. */
  requestBody?: object;
  /** The answers other than problems, by status. */
  responses: Record<number, object>;
  /** The problem statuses the route answers itself (every route also names the `default` problem). */
  errors?: number[];
}

/** The shared problem response, by reference. */
export const PROBLEM = { $ref: "#/components/responses/Problem" };

/** Any JSON object: `{ type: "object" }` alone reads as "no properties" to some generators (openapi-typescript). */
export const ANY_OBJECT = { type: "object", additionalProperties: true };

/** A JSON answer: its description, and a schema (any object unless given). */
export const jsonAnswer = (description: string, schema: object = ANY_OBJECT) => ({
  description,
  content: { "application/json": { schema } },
});

/** A JSON request body: a component (by name) or a schema. */
export const jsonBody = (schema: string | object, required?: true) => ({
  ...(required ? { required } : {}),
  content: {
    "application/json": {
      schema: typeof schema === "string" ? { $ref: `#/components/schemas/${schema}` } : schema,
    },
  },
});

/** An event stream answer. */
export const SSE_ANSWER = {
  description: "Server-sent events: `id: <seq>`, `event: <type>`, `data: <json>`; `: ping` heartbeats.",
  content: { "text/event-stream": { schema: { type: "string" } } },
};

/** A listing filter that may repeat: every value given must match (two different values list nothing). */
export const narrowing = (name: string) => ({
  name,
  in: "query",
  schema: { type: "array", items: { type: "string" } },
  style: "form",
  explode: true,
  description: `Only narrows; repeated, a row must match every value.`,
});
