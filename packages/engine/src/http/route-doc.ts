/**
 * What a route tells the OpenAPI document about itself, written beside its handler so that the document
 * is generated from the route table and never lists a route or a status a second time.
 */
export interface RouteDoc {
  summary: string;
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

/** A JSON answer: its description, and a schema (`object` unless given). */
export const jsonAnswer = (description: string, schema: object = { type: "object" }) => ({
  description,
  content: { "application/json": { schema } },
});

/** A JSON request body whose schema is a component. */
export const jsonBody = (component: string, required?: true) => ({
  ...(required ? { required } : {}),
  content: { "application/json": { schema: { $ref: `#/components/schemas/${component}` } } },
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
