import type { HttpContext } from "../context.js";
import { httpCaller, parseObjectBody, queryString } from "../request-body.js";
import { jsonAnswer, jsonBody } from "../route-doc.js";
import type { Route } from "../router.js";
import { json, jsonText } from "../types.js";

const base = "/sessions/:sessionId/resources/:ref";

/**
 * The client resource endpoints. Order matters: `…/:ref/content` comes before the multi-segment
 * `:topic` routes, so a topic literally named `content` is shadowed (routing rule 2).
 */
export const resourceRoutes: Route<HttpContext>[] = [
  {
    method: "GET",
    path: `${base}/content`,
    doc: {
      operationId: "readResourceContent",
      auth: "principal",
      tag: "Resources",
      summary: "Single resource content",
      responses: { 200: jsonAnswer("{ content }") },
      errors: [401, 403, 404],
    },
    handler: async (req, { sessionId, ref }, { host }) =>
      json(200, await (await host.resourceApi(sessionId!, httpCaller(req))).readContent(ref!)),
  },
  {
    method: "GET",
    path: base,
    doc: {
      operationId: "listCollectionItems",
      auth: "principal",
      tag: "Resources",
      summary: "List a collection page",
      parameters: [
        {
          name: "limit",
          in: "query",
          description: "Page size, at most 200: a larger value is served as 200 (not refused).",
          schema: { type: "integer", minimum: 1, default: 50 },
        },
        {
          name: "offset",
          in: "query",
          description: "Items to skip. Not with cursor (400 invalid-pagination).",
          schema: { type: "integer", minimum: 0, default: 0 },
        },
        {
          name: "topicPrefix",
          in: "query",
          description:
            "Prefix of the full storage key (notes/a for pattern notes/*), not of the part after the pattern's literal prefix.",
          schema: { type: "string" },
        },
        {
          name: "cursor",
          in: "query",
          description:
            "Opaque: a previous page's pagination.nextCursor, with the same topicPrefix. The page starts after the key that page ended on (keyset: the same cost at any depth) and answers { limit, cursor, nextCursor, total, hasMore }. A malformed cursor, or one made for another collection or topicPrefix, is 400 invalid-pagination. External collections: the app's own cursor.",
          schema: { type: "string" },
        },
      ],
      responses: { 200: jsonAnswer("Collection page") },
      errors: [400, 401, 403, 404],
    },
    handler: async (req, { sessionId, ref }, { host }) => {
      const api = await host.resourceApi(sessionId!, httpCaller(req));
      const query = {
        limit: queryString(req, "limit"),
        offset: queryString(req, "offset"),
        topicPrefix: queryString(req, "topicPrefix"),
        cursor: queryString(req, "cursor"),
      };
      const defined = Object.fromEntries(Object.entries(query).filter(([, v]) => v !== undefined));
      return jsonText(200, await api.listItemsJson(ref!, defined));
    },
  },
  {
    method: "POST",
    path: base,
    doc: {
      operationId: "createCollectionItem",
      auth: "principal",
      tag: "Resources",
      summary: "Create a collection item",
      requestBody: jsonBody("ItemCreate"),
      responses: { 201: jsonAnswer("Created") },
      errors: [400, 401, 403, 404, 409, 413, 415, 503],
    },
    handler: async (req, { sessionId, ref }, { host }) => {
      const body = parseObjectBody(req);
      const api = await host.resourceApi(sessionId!, httpCaller(req));
      return json(201, await api.createItem(ref!, body));
    },
  },
  {
    method: "GET",
    path: `${base}/*topic/content`,
    doc: {
      operationId: "readItemContent",
      auth: "principal",
      tag: "Resources",
      summary: "Item content",
      responses: { 200: jsonAnswer("{ content }") },
      errors: [401, 403, 404],
    },
    handler: async (req, { sessionId, ref, topic }, { host }) =>
      json(200, await (await host.resourceApi(sessionId!, httpCaller(req))).readItemContent(ref!, topic!)),
  },
  {
    method: "PATCH",
    path: `${base}/*topic/content`,
    doc: {
      operationId: "replaceItemContent",
      auth: "principal",
      tag: "Resources",
      summary: "Replace item content",
      requestBody: jsonBody("ItemContent", true),
      responses: { 200: jsonAnswer("Updated") },
      errors: [400, 401, 403, 404, 413, 415, 503],
    },
    handler: async (req, { sessionId, ref, topic }, { host }) => {
      const body = parseObjectBody(req);
      const api = await host.resourceApi(sessionId!, httpCaller(req));
      return json(200, await api.patchItemContent(ref!, topic!, body));
    },
  },
  {
    method: "GET",
    path: `${base}/*topic`,
    doc: {
      operationId: "readItem",
      auth: "principal",
      tag: "Resources",
      summary: "Item state (clientData)",
      pathParams: { topic: "item key; encode '/' as %2F" },
      responses: { 200: jsonAnswer("Item") },
      errors: [401, 403, 404],
    },
    handler: async (req, { sessionId, ref, topic }, { host }) =>
      jsonText(200, await (await host.resourceApi(sessionId!, httpCaller(req))).readItemJson(ref!, topic!)),
  },
  {
    method: "DELETE",
    path: `${base}/*topic`,
    doc: {
      operationId: "deleteItem",
      auth: "principal",
      tag: "Resources",
      summary: "Delete an item (200 when missing)",
      responses: { 200: jsonAnswer("Deleted") },
      errors: [401, 403, 404, 409, 415, 503],
    },
    handler: async (req, { sessionId, ref, topic }, { host }) =>
      json(200, await (await host.resourceApi(sessionId!, httpCaller(req))).deleteItem(ref!, topic!)),
  },
];
