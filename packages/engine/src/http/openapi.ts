import type { FlowHost } from "../host.js";
import {
  ACTION_ACCEPTED_SCHEMA,
  ITEM_BODY_SCHEMAS,
  PROBLEM_RESPONSES,
  PROBLEM_SCHEMA,
  problemRef,
  REQUEST_ERROR_SCHEMA,
  requestSchema,
  SESSION_SCHEMA,
  TAGS,
} from "./openapi-components.js";
import { flowNeed, routeNeed, securityRequirement } from "./openapi-security.js";
import type { RouteDoc, RouteOperation } from "./route-doc.js";
import type { Route } from "./router.js";

/** A route path in OpenAPI's form: `:name` and `*name` segments become `{name}`, or the value `filled` gives. */
function openApiPath(path: string, filled: Record<string, string> = {}): string {
  return path.replace(/(^|\/)[:*]([^/]+)/g, (_match, slash: string, name: string) =>
    name in filled ? `${slash}${encodeURIComponent(filled[name]!)}` : `${slash}{${name}}`,
  );
}

/** The path parameters of a route, in the order its path names them (less those an operation fills in). */
function pathParameters(
  path: string,
  descriptions: Record<string, string> = {},
  filled: Record<string, string> = {},
): object[] {
  return path
    .split("/")
    .filter((segment) => segment.startsWith(":") || segment.startsWith("*"))
    .map((segment) => segment.slice(1))
    .filter((name) => !(name in filled))
    .map((name) => ({
      name,
      in: "path",
      required: true,
      schema: { type: "string" },
      description: descriptions[name] ?? name,
    }));
}

/** The OpenAPI operation of a route (or of one of its per-flow operations), from its own {@link RouteDoc}. */
function operation(
  path: string,
  doc: RouteDoc,
  security: object[],
  filled: Record<string, string> = {},
  own?: RouteOperation,
): object {
  const parameters = [...pathParameters(path, doc.pathParams, filled), ...(doc.parameters ?? [])];
  const responses: Record<string, object> = {};
  for (const [status, answer] of Object.entries({ ...doc.responses, ...own?.responses }))
    responses[status] = answer;
  for (const status of doc.errors ?? []) responses[String(status)] = problemRef(status);
  // Any route may also answer a problem it does not list: 405 for another method, 500, 503 from a store.
  responses.default = problemRef("default");
  const description = own ? own.description : doc.description;
  const requestBody = own?.requestBody ?? doc.requestBody;
  return {
    operationId: own?.operationId ?? doc.operationId,
    ...(doc.tag !== undefined ? { tags: [doc.tag] } : {}),
    summary: own?.summary ?? doc.summary,
    ...(description !== undefined ? { description } : {}),
    ...(parameters.length > 0 ? { parameters } : {}),
    ...(requestBody ? { requestBody } : {}),
    responses,
    security,
  };
}

/** Every `$ref` a value holds. */
function refsIn(value: unknown, into: Set<string>): Set<string> {
  if (Array.isArray(value)) for (const item of value) refsIn(item, into);
  else if (typeof value === "object" && value !== null)
    for (const [key, item] of Object.entries(value)) {
      if (key === "$ref" && typeof item === "string") into.add(item);
      else refsIn(item, into);
    }
  return into;
}

/**
 * An OpenAPI 3.1 description of the host's HTTP API, generated from the route table (each route carries its
 * operation id, summary, parameters, body, the statuses it answers and how it knows its caller). A route documented
 * per flow (actions, session creation, webhooks) has one operation per flow, action or provider, with the action's
 * input and output schemas converted from its zod schemas. `server` is where the API is served, as the request for
 * the document saw it (a prefix the application mounts it under included); the host's `basePath` by default.
 */
export function openApiDocument(host: FlowHost, routes: readonly Route<never>[], server = host.basePath) {
  const paths: Record<string, Record<string, object>> = {};
  const schemas: Record<string, object> = {
    Problem: PROBLEM_SCHEMA,
    ActionAccepted: ACTION_ACCEPTED_SCHEMA,
    RequestError: REQUEST_ERROR_SCHEMA,
    Session: SESSION_SCHEMA,
    ...ITEM_BODY_SCHEMAS,
  };
  const taken = new Set((routes as readonly Route<unknown>[]).map((route) => route.doc.operationId));
  const unique = (candidate: string) => {
    let id = candidate;
    for (let n = 2; taken.has(id); n++) id = `${candidate}${n}`;
    taken.add(id);
    return id;
  };
  const outputs: object[] = [];
  let anyOutput = host.registry.flows.some((flow) => Object.keys(flow.definition.webhooks).length > 0);
  for (const route of routes as readonly Route<unknown>[]) {
    const { doc } = route;
    const method = route.method.toLowerCase();
    if (!doc.operations) {
      const security = securityRequirement(host, routeNeed(host, doc.auth));
      (paths[openApiPath(route.path)] ??= {})[method] = operation(route.path, doc, security);
      continue;
    }
    for (const own of doc.operations(host, unique)) {
      const need = doc.auth === "principal" ? flowNeed(host, own.flow) : routeNeed(host, doc.auth);
      const path = openApiPath(route.path, own.params);
      (paths[path] ??= {})[method] = operation(
        route.path,
        doc,
        securityRequirement(host, need),
        own.params,
        own,
      );
      Object.assign(schemas, own.schemas);
      if (own.output) outputs.push(own.output);
      else if (own.output === null) anyOutput = true;
    }
  }
  schemas.Request = requestSchema(outputs, anyOutput);
  const responses: Record<string, object> = {};
  const used = refsIn(paths, new Set());
  for (const { name, description } of Object.values(PROBLEM_RESPONSES)) {
    if (!used.has(`#/components/responses/${name}`)) continue;
    responses[name] = {
      description,
      content: { "application/problem+json": { schema: { $ref: "#/components/schemas/Problem" } } },
    };
  }
  // Listed where an operation asks for one: a host whose flows have no resolver documents no credential at all.
  const secured = Object.values(paths).some((item) =>
    Object.values(item).some((op) => ((op as { security: object[] }).security ?? []).length > 0),
  );
  const securitySchemes = secured ? host.openapi.securitySchemes : {};
  const usedTags = new Set(
    Object.values(paths).flatMap((item) =>
      Object.values(item).flatMap((op) => (op as { tags?: string[] }).tags ?? []),
    ),
  );
  return {
    openapi: "3.1.0",
    info: {
      title: "flowrt HTTP API",
      version: "1",
      description: `Flows on this host: ${host.registry.flows.map((f) => `${f.id} (${Object.keys(f.definition.actions).join(", ") || "no actions"})`).join("; ")}`,
      ...host.openapi.info,
    },
    servers: [{ url: server || "/" }],
    tags: TAGS.filter((tag) => usedTags.has(tag.name)),
    paths,
    components: {
      schemas: usedSchemas(schemas, [paths, responses]),
      responses,
      ...(Object.keys(securitySchemes).length > 0 ? { securitySchemes } : {}),
    },
  };
}

/** The schemas the document refers to, directly or through another schema (a listed but unused one is noise). */
function usedSchemas(schemas: Record<string, object>, roots: object[]): Record<string, object> {
  const prefix = "#/components/schemas/";
  const used = new Set<string>();
  const pending = [...refsIn(roots, new Set())];
  while (pending.length > 0) {
    const ref = pending.pop()!;
    if (!ref.startsWith(prefix)) continue;
    const name = ref.slice(prefix.length);
    if (used.has(name) || !(name in schemas)) continue;
    used.add(name);
    pending.push(...refsIn(schemas[name], new Set()));
  }
  return Object.fromEntries(Object.entries(schemas).filter(([name]) => used.has(name)));
}
