import type { HttpContext } from "./handler.js";
import { httpCaller, parseObjectBody, queryString } from "./request-body.js";
import type { Route } from "./router.js";
import { json, jsonText } from "./types.js";

const base = "/sessions/:sessionId/resources/:ref";

/**
 * The client resource endpoints. Order matters: `…/:ref/content` comes before the multi-segment
 * `:topic` routes, so a topic literally named `content` is shadowed (routing rule 2).
 */
export const resourceRoutes: Route<HttpContext>[] = [
  {
    method: "GET",
    path: `${base}/content`,
    handler: async (req, { sessionId, ref }, { host }) =>
      json(200, await (await host.resourceApi(sessionId!, httpCaller(req))).readContent(ref!)),
  },
  {
    method: "GET",
    path: base,
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
    handler: async (req, { sessionId, ref }, { host }) => {
      const body = parseObjectBody(req);
      const api = await host.resourceApi(sessionId!, httpCaller(req));
      return json(201, await api.createItem(ref!, body));
    },
  },
  {
    method: "GET",
    path: `${base}/*topic/content`,
    handler: async (req, { sessionId, ref, topic }, { host }) =>
      json(200, await (await host.resourceApi(sessionId!, httpCaller(req))).readItemContent(ref!, topic!)),
  },
  {
    method: "PATCH",
    path: `${base}/*topic/content`,
    handler: async (req, { sessionId, ref, topic }, { host }) => {
      const body = parseObjectBody(req);
      const api = await host.resourceApi(sessionId!, httpCaller(req));
      return json(200, await api.patchItemContent(ref!, topic!, body));
    },
  },
  {
    method: "GET",
    path: `${base}/*topic`,
    handler: async (req, { sessionId, ref, topic }, { host }) =>
      jsonText(200, await (await host.resourceApi(sessionId!, httpCaller(req))).readItemJson(ref!, topic!)),
  },
  {
    method: "DELETE",
    path: `${base}/*topic`,
    handler: async (req, { sessionId, ref, topic }, { host }) =>
      json(200, await (await host.resourceApi(sessionId!, httpCaller(req))).deleteItem(ref!, topic!)),
  },
];
