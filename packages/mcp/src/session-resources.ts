import type { Caller, FlowHost } from "@flowrt/engine";
import {
  type ListResourcesResult,
  type ListResourceTemplatesResult,
  McpError,
  type ReadResourceResult,
  type Resource,
} from "@modelcontextprotocol/sdk/types.js";
import { MCP_ERROR_CODES, mcpErrorOf, publicProblem } from "./mcp-errors.js";
import { contentUri, pageUri, parseResourceUri, RESOURCE_URI_PREFIX, stateUri } from "./resource-uri.js";

const JSON_TYPE = "application/json";
/** Sessions per `resources/list` page. */
const SESSIONS_PER_PAGE = 50;

/** The templates of every resource URI this server reads (RFC 6570, as MCP's resource templates are). */
export function resourceTemplates(): ListResourceTemplatesResult {
  const at = `${RESOURCE_URI_PREFIX}{sessionId}`;
  return {
    resourceTemplates: [
      { uriTemplate: `${at}/state`, name: "session-state", title: "Session snapshot", mimeType: JSON_TYPE },
      {
        uriTemplate: `${at}/manifest`,
        name: "session-manifest",
        title: "Resource manifest",
        mimeType: JSON_TYPE,
      },
      {
        uriTemplate: `${at}/resources/{ref}/content`,
        name: "resource-content",
        title: "Single resource content",
        mimeType: "text/plain",
      },
      {
        uriTemplate: `${at}/resources/{ref}{?limit,offset,topicPrefix,cursor}`,
        name: "collection-page",
        title: "A page of a collection",
        mimeType: JSON_TYPE,
      },
      {
        uriTemplate: `${at}/resources/{ref}/{topic}`,
        name: "item-state",
        title: "Item state",
        mimeType: JSON_TYPE,
      },
      {
        uriTemplate: `${at}/resources/{ref}/{topic}/content`,
        name: "item-content",
        title: "Item content",
        mimeType: "text/plain",
      },
    ],
  };
}

/** A failure of a resource call as a JSON-RPC error (401, 403 as themselves, 404 as MCP's "resource not found"). */
function readError(host: FlowHost, error: unknown, uri: string): McpError {
  return mcpErrorOf(publicProblem(error, host.logger, { uri }), { read: true });
}

/**
 * `resources/list`: one page of the caller's sessions (the listing `GET /sessions` answers, scoped to the caller,
 * never rejected), each as its snapshot and the resources its manifest opens to clients (a single resource whose
 * content is readable, a collection whose item states are). The MCP cursor is the listing's own.
 */
export async function listSessionResources(
  host: FlowHost,
  caller: Caller,
  cursor: string | undefined,
): Promise<ListResourcesResult> {
  let page: Awaited<ReturnType<FlowHost["listSessionsPage"]>>;
  try {
    page = await host.listSessionsPage(caller, { limit: SESSIONS_PER_PAGE, ...(cursor ? { cursor } : {}) });
  } catch (error) {
    throw readError(host, error, "resources/list");
  }
  const resources: Resource[] = [];
  for (const session of page.sessions) {
    const label = session.title ?? session.id;
    resources.push({ uri: stateUri(session.id), name: `${label} state`, mimeType: JSON_TYPE });
    const manifest = await host.manifest(session.id).catch(() => undefined);
    for (const entry of manifest?.resources ?? []) {
      if (entry.kind === "single" && entry.client.content.read) {
        resources.push({
          uri: contentUri(session.id, entry.ref),
          name: `${label} ${entry.ref}`,
          mimeType: "text/plain",
        });
      } else if (entry.kind === "collection" && entry.client.state?.read) {
        resources.push({
          uri: pageUri(session.id, entry.ref),
          name: `${label} ${entry.ref}`,
          mimeType: JSON_TYPE,
        });
      }
    }
  }
  return { resources, ...(page.nextCursor ? { nextCursor: page.nextCursor } : {}) };
}

const jsonContents = (uri: string, text: string): ReadResourceResult => ({
  contents: [{ uri, mimeType: JSON_TYPE, text }],
});

/** A content body as text; a resource without a content row (`{ content: null }` on HTTP) reads as no contents. */
const textContents = (uri: string, content: string | null): ReadResourceResult => ({
  contents: content === null ? [] : [{ uri, mimeType: "text/plain", text: content }],
});

/**
 * `resources/read`: the HTTP resource route the URI mirrors, through the same host calls (owner check, client
 * config permissions, projections): what a caller cannot read over HTTP they cannot read here.
 */
export async function readSessionResource(
  host: FlowHost,
  caller: Caller,
  uri: string,
): Promise<ReadResourceResult> {
  const address = parseResourceUri(uri);
  if (!address) throw new McpError(MCP_ERROR_CODES.resourceNotFound, `Unknown resource URI: ${uri}`, { uri });
  try {
    switch (address.kind) {
      case "state":
        return jsonContents(uri, JSON.stringify(await host.snapshot(address.sessionId, caller)));
      case "manifest":
        return jsonContents(uri, JSON.stringify(await host.manifest(address.sessionId)));
      case "content": {
        const api = await host.resourceApi(address.sessionId, caller);
        return textContents(uri, (await api.readContent(address.ref)).content);
      }
      case "page": {
        const api = await host.resourceApi(address.sessionId, caller);
        const { limit, offset, topicPrefix, cursor } = address.query;
        const query = Object.fromEntries(
          Object.entries({ limit, offset, topicPrefix, cursor }).filter(([, value]) => value !== undefined),
        );
        return jsonContents(uri, await api.listItemsJson(address.ref, query));
      }
      case "item": {
        const api = await host.resourceApi(address.sessionId, caller);
        return jsonContents(uri, await api.readItemJson(address.ref, address.topic));
      }
      case "item-content": {
        const api = await host.resourceApi(address.sessionId, caller);
        return textContents(uri, (await api.readItemContent(address.ref, address.topic)).content);
      }
    }
  } catch (error) {
    throw readError(host, error, uri);
  }
}
