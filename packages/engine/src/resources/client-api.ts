import {
  type AnyResourceDefinition,
  clientPermissions,
  FlowError,
  hasClientConfig,
  hasErrorCode,
  type JsonValue,
  projectionOf,
} from "@flowrt/core";
import {
  badRequest,
  type ListQuery,
  parsePageWindow,
  parsePagination,
  readCreateBody,
} from "./client-input.js";
import { itemJson, pageJson, pageText, readRecordText } from "./client-json.js";
import { CollectionRuntime } from "./collection.js";
import { decodeCursor, encodeCursor } from "./collection-cursor.js";
import type { KeyPage, PageWindow } from "./collection-keys.js";
import type { TemplateSource } from "./content.js";
import type { ResourceRuntimeContext } from "./context.js";
import { clientDataOf } from "./events.js";
import { ExternalCollectionRuntime } from "./external-collection.js";
import { buildResourceRuntime, createResourceScope, type ResourceRuntime } from "./resource-scope.js";
import { seedState } from "./seed-state.js";
import { SingleResourceRuntime } from "./single-resource.js";

export interface ListItem {
  topic: string;
  clientData?: JsonValue;
}

/** `pagination` of a collection page by offset; `nextCursor` continues it by cursor from where it ends. */
export interface OffsetPagination {
  offset: number;
  limit: number;
  total: number;
  hasMore: boolean;
  /** `offset` plus the items the page covers, also on the last page. */
  nextOffset: number;
  /** The cursor of the next page; `null` on the last page. */
  nextCursor: string | null;
}

/** `pagination` of a collection page by cursor (`cursor` is the one the page was asked with). */
export interface CursorPagination {
  limit: number;
  cursor: string;
  nextCursor: string | null;
  total: number;
  hasMore: boolean;
}

/** `pagination` of an external collection's page: the app's own cursors. */
export interface ExternalPagination {
  limit: number;
  cursor: string | null;
  nextCursor: string | null;
}

export type ListPage = {
  items: ListItem[];
  pagination: OffsetPagination | CursorPagination | ExternalPagination;
};

/** The operations behind the HTTP resource endpoints; each returns plain data or throws a `FlowError`. */
export interface ClientResourceApi {
  /** GET `/sessions/:id/resources/:ref/content` (single resource). */
  readContent(ref: string): Promise<{ content: string | null }>;
  /** GET `/sessions/:id/resources/:ref` (collection page). */
  listItems(ref: string, query?: ListQuery): Promise<ListPage>;
  /** GET `/sessions/:id/resources/:ref/:topic` (item clientData). */
  readItem(ref: string, topic: string): Promise<{ topic: string; clientData: JsonValue | null }>;
  /**
   * {@link ClientResourceApi.listItems} as JSON text, the bytes `JSON.stringify` makes of its result, for a
   * transport that sends it on as is. A page of whole states (no projection) is laid out from the text
   * the store holds, without parsing it, when the store has text reads.
   */
  listItemsJson(ref: string, query?: ListQuery): Promise<string>;
  /** {@link ClientResourceApi.readItem} as JSON text, in the same way as {@link ClientResourceApi.listItemsJson}. */
  readItemJson(ref: string, topic: string): Promise<string>;
  /** GET `/sessions/:id/resources/:ref/:topic/content`; `content` is `null` without a content row. */
  readItemContent(ref: string, topic: string): Promise<{ content: string | null }>;
  /** POST `/sessions/:id/resources/:ref` (201): state first, then content. */
  createItem(ref: string, body: unknown): Promise<{ topic: string; clientData?: JsonValue }>;
  /** PATCH `/sessions/:id/resources/:ref/:topic/content`. */
  patchItemContent(ref: string, topic: string, body: unknown): Promise<{ topic: string }>;
  /** DELETE `/sessions/:id/resources/:ref/:topic`; `deleted: false` when the topic did not exist (still 200). */
  deleteItem(ref: string, topic: string): Promise<{ topic: string; deleted: boolean }>;
}

function notFound(ref: string, why: string): FlowError {
  return new FlowError("resource-not-found", `Resource "${ref}" ${why}.`, { details: { resource: ref } });
}

function notPermitted(ref: string, operation: string, flag: string): FlowError {
  return new FlowError(
    "operation-not-permitted",
    `Resource "${ref}" does not permit ${operation}; its client config would need ${flag}: true.`,
    {
      details: { resource: ref, operation },
    },
  );
}

/** A registered flow's declarations are frozen: their client-visible subset is computed once per map. */
const visibleByDeclarations = new WeakMap<object, Readonly<Record<string, AnyResourceDefinition>>>();

/** The declarations with a `client` config (rule 1: the others are invisible to clients). */
function visibleResources(
  declarations: Readonly<Record<string, AnyResourceDefinition>>,
): Readonly<Record<string, AnyResourceDefinition>> {
  const frozen = Object.isFrozen(declarations);
  let visible = frozen ? visibleByDeclarations.get(declarations) : undefined;
  if (visible === undefined) {
    const found: Record<string, AnyResourceDefinition> = {};
    for (const [accessor, def] of Object.entries(declarations))
      if (hasClientConfig(def)) found[accessor] = def;
    visible = Object.freeze(found);
    if (frozen) visibleByDeclarations.set(declarations, visible);
  }
  return visible;
}

/**
 * Creates the client resource operations of one session (routing rules 3–12). Only resources with a
 * `client` config are reachable (else `resource-not-found`); each operation checks its permission flag
 * (else `operation-not-permitted`).
 */
export function createClientResourceApi(
  ctx: ResourceRuntimeContext,
  declarations: Readonly<Record<string, AnyResourceDefinition>>,
): ClientResourceApi {
  return new ClientResources(ctx, visibleResources(declarations), declarations);
}

const need = (ok: boolean, ref: string, operation: string, flag: string): void => {
  if (!ok) throw notPermitted(ref, operation, flag);
};

/**
 * One call's view of a session's client-visible resources. A resource's runtime is built when an
 * operation first names it; reads of internal collections go to the store's records directly.
 */
class ClientResources implements ClientResourceApi, TemplateSource {
  private readonly ctx: ResourceRuntimeContext;
  private readonly visible: Readonly<Record<string, AnyResourceDefinition>>;
  /** Every declaration of the flow: a template resource need not be visible to clients to render one that is. */
  private readonly declarations: Readonly<Record<string, AnyResourceDefinition>>;
  /** The runtime of the resource a call names (a call names one; a second name builds a second). */
  private named: { ref: string; runtime: ResourceRuntime | FlowError } | undefined;
  /** A scope of every declared resource, made only when content rendering looks a template up. */
  private templateScope: TemplateSource | undefined;

  constructor(
    ctx: ResourceRuntimeContext,
    visible: Readonly<Record<string, AnyResourceDefinition>>,
    declarations: Readonly<Record<string, AnyResourceDefinition>>,
  ) {
    this.ctx = ctx;
    this.visible = visible;
    this.declarations = declarations;
  }

  templateText(
    ref: Parameters<TemplateSource["templateText"]>[0],
    requester: string,
  ): Promise<string | null> {
    this.templateScope ??= createResourceScope(this.ctx, this.declarations);
    return this.templateScope.templateText(ref, requester);
  }

  private resolve(ref: string): { def: AnyResourceDefinition; runtime: ResourceRuntime } {
    const def = Object.hasOwn(this.visible, ref) ? this.visible[ref] : undefined;
    if (def === undefined) throw notFound(ref, "does not exist or is not visible to clients");
    if (this.named?.ref !== ref)
      this.named = { ref, runtime: buildResourceRuntime(this.ctx, this, ref, def) };
    const runtime = this.named.runtime;
    if (runtime instanceof Error)
      throw notFound(
        ref,
        `is not available on session "${this.ctx.session.id}" (it is org-scoped and the session has no org)`,
      );
    return { def, runtime };
  }

  private collection(ref: string): CollectionRuntime | ExternalCollectionRuntime {
    const { runtime } = this.resolve(ref);
    if (runtime instanceof SingleResourceRuntime)
      throw notFound(ref, "is a single resource, not a collection");
    return runtime;
  }

  private internal(ref: string, operation: string): CollectionRuntime {
    const runtime = this.collection(ref);
    if (runtime instanceof ExternalCollectionRuntime) {
      throw new FlowError(
        "operation-not-permitted",
        `Resource "${ref}" is an external collection; it is read-only for clients (${operation}).`,
        {
          details: { resource: ref, operation },
        },
      );
    }
    return runtime;
  }

  async readContent(ref: string): Promise<{ content: string | null }> {
    const { def, runtime } = this.resolve(ref);
    if (!(runtime instanceof SingleResourceRuntime))
      throw notFound(ref, "is a collection; read an item's content at /:ref/:topic/content");
    need(clientPermissions(def).content.read, ref, "reading content", "content.read");
    return { content: await runtime.handle.readContent() };
  }

  listItems(ref: string, query: ListQuery = {}): Promise<ListPage> {
    return this.list(ref, query, false) as Promise<ListPage>;
  }

  async listItemsJson(ref: string, query: ListQuery = {}): Promise<string> {
    const page = await this.list(ref, query, true);
    return typeof page === "string" ? page : JSON.stringify(page);
  }

  /** A page; with `asText`, a page of whole states comes back as its JSON text when the store can say it. */
  private async list(ref: string, query: ListQuery, asText: boolean): Promise<ListPage | string> {
    const runtime = this.collection(ref);
    need(clientPermissions(runtime.def).state.read, ref, "listing items", "state.read");
    if (query.topicPrefix !== undefined && typeof query.topicPrefix !== "string")
      throw badRequest("topicPrefix must be a string.");
    if (runtime instanceof ExternalCollectionRuntime) {
      const limit = parsePagination({ limit: query.limit }).limit;
      if (query.cursor !== undefined && typeof query.cursor !== "string") {
        throw new FlowError("invalid-pagination", "cursor must be a string.", {
          details: { field: "cursor" },
        });
      }
      const external: { limit: number; prefix?: string; cursor?: string } = { limit };
      if (query.topicPrefix) external.prefix = query.topicPrefix;
      if (query.cursor) external.cursor = query.cursor;
      const page = await runtime.search(external);
      return {
        items: page.items.map((item) =>
          withData({ topic: item.path }, clientDataOf(this.ctx, runtime.def, ref, item.state, false)),
        ),
        pagination: { limit, cursor: query.cursor ?? null, nextCursor: page.nextCursor ?? null },
      };
    }
    const request = parsePageWindow(query);
    const { limit } = request;
    const def = runtime.def;
    const prefix = fullKeyPrefix(def.compiledPattern.literalPrefix, query.topicPrefix);
    // A cursor is made for one collection and one full-key prefix (a `topicPrefix` that diverges from the
    // collection's keys lists nothing, and no page of it hands out a cursor).
    const target = {
      flowKind: this.ctx.flow.kind,
      ref,
      prefix: prefix === null ? (query.topicPrefix as string) : def.compiledPattern.listPrefix(prefix),
    };
    const window: PageWindow =
      request.offset !== undefined
        ? { offset: request.offset }
        : { after: decodeCursor(target, request.cursor) };
    const pagination = (page: Omit<KeyPage<unknown>, "records">): OffsetPagination | CursorPagination => {
      const { total, hasMore } = page;
      const nextCursor = hasMore && page.lastKey !== undefined ? encodeCursor(target, page.lastKey) : null;
      if ("after" in window) return { limit, cursor: request.cursor as string, nextCursor, total, hasMore };
      const { offset } = window;
      return { offset, limit, total, hasMore, nextOffset: offset + page.covered, nextCursor };
    };
    if (prefix === null) {
      const empty = { total: 0, hasMore: false, lastKey: undefined, covered: 0 };
      return { items: [], pagination: pagination(empty) };
    }
    // Without a projection an item's clientData is its whole state (state.read holds here): the stored text.
    const text =
      asText && projectionOf(def) === undefined ? await pageText(runtime, prefix, window, limit) : null;
    if (text !== null) return pageJson(text.records, pagination(text));
    const page = await runtime.page(prefix, window, limit);
    return {
      items: page.records.map((record) =>
        withData({ topic: record.key }, clientDataOf(this.ctx, def, ref, record.state, true)),
      ),
      pagination: pagination(page),
    };
  }

  async readItemJson(ref: string, topic: string): Promise<string> {
    const runtime = this.collection(ref);
    if (runtime instanceof CollectionRuntime && projectionOf(runtime.def) === undefined) {
      need(clientPermissions(runtime.def).state.read, ref, "reading item state", "state.read");
      const path = runtime.toPath(topic);
      const record = await readRecordText(runtime, path);
      if (record !== undefined) return itemJson(record);
    }
    return JSON.stringify(await this.readItem(ref, topic));
  }

  async readItem(ref: string, topic: string): Promise<{ topic: string; clientData: JsonValue | null }> {
    const runtime = this.collection(ref);
    need(clientPermissions(runtime.def).state.read, ref, "reading item state", "state.read");
    if (runtime instanceof ExternalCollectionRuntime) {
      const found = await runtime.handle.get(topic);
      return {
        topic: found.path,
        clientData: clientDataOf(this.ctx, runtime.def, ref, found.state, false) ?? null,
      };
    }
    const path = runtime.toPath(topic);
    const record = await runtime.readRecord(path);
    return { topic: path, clientData: clientDataOf(this.ctx, runtime.def, ref, record.state, true) ?? null };
  }

  async readItemContent(ref: string, topic: string): Promise<{ content: string | null }> {
    const runtime = this.collection(ref);
    need(clientPermissions(runtime.def).content.read, ref, "reading item content", "content.read");
    if (runtime instanceof ExternalCollectionRuntime)
      return { content: await (await runtime.handle.get(topic)).readContent() };
    const found = await runtime.handle.get(runtime.toPath(topic));
    return { content: await found.readContent() };
  }

  async createItem(ref: string, body: unknown): Promise<{ topic: string; clientData?: JsonValue }> {
    const runtime = this.internal(ref, "create");
    need(clientPermissions(runtime.def).content.create, ref, "creating items", "content.create");
    const { topic, content } = readCreateBody(body);
    const path = runtime.toPath(topic);
    // The seed is the schema's output: stored as it is, not parsed a second time (transforms run once).
    const state = seedState(ref, runtime.def.stateSchema);
    await runtime.createSeeded(path, state);
    if (content !== undefined) {
      try {
        await runtime.writeContentAt(path, content);
      } catch (error) {
        // Content the store refuses as input (text it cannot hold) is the caller's 400, and the item just
        // made is taken back so that nothing is left half-written; a failure of the store itself (or an
        // item changed meanwhile) leaves it without content, as the specification's rule 8 says.
        if (hasErrorCode(error, "invalid-request") && (await runtime.remove(path, true).catch(() => false)))
          throw error;
        throw new FlowError(
          "content-write-failed",
          `Resource "${ref}": item "${path}" was created but its content could not be written; repair it with PATCH.`,
          { cause: error, details: { resource: ref, topic: path } },
        );
      }
    }
    return withData(
      { topic: path },
      // The seed is what was stored (the store and the hooks had copies of it), checked to be JSON.
      clientPermissions(runtime.def).state.read
        ? clientDataOf(this.ctx, runtime.def, ref, state, true)
        : undefined,
    );
  }

  async patchItemContent(ref: string, topic: string, body: unknown): Promise<{ topic: string }> {
    const runtime = this.internal(ref, "update");
    need(clientPermissions(runtime.def).content.update, ref, "updating item content", "content.update");
    const content = (body as { content?: unknown } | null)?.content;
    if (typeof body !== "object" || body === null || typeof content !== "string") {
      throw badRequest('The body must be { "content": string }.', { field: "content" });
    }
    const path = runtime.toPath(topic);
    const found = await runtime.find(path, { fresh: true });
    if (found === null) {
      throw new FlowError("instance-not-found", `Resource "${ref}" has no item "${path}".`, {
        details: { resource: ref, topic: path },
      });
    }
    await found.writeContent(content);
    return { topic: path };
  }

  async deleteItem(ref: string, topic: string): Promise<{ topic: string; deleted: boolean }> {
    const runtime = this.internal(ref, "delete");
    need(clientPermissions(runtime.def).content.delete, ref, "deleting items", "content.delete");
    const path = runtime.toPath(topic);
    return { topic: path, deleted: await runtime.remove(path, true) };
  }
}

/**
 * The HTTP `topicPrefix` is compared with the full storage key, never the part after the pattern's
 * literal prefix (specification, query rules). A prefix of the literal prefix covers the whole
 * collection; one that diverges from it matches nothing (`null`).
 */
function fullKeyPrefix(literalPrefix: string, topicPrefix: string | undefined): string | undefined | null {
  if (topicPrefix === undefined || topicPrefix.startsWith(literalPrefix)) return topicPrefix;
  return literalPrefix.startsWith(topicPrefix) ? literalPrefix : null;
}

function withData(item: ListItem, clientData: JsonValue | undefined): ListItem {
  if (clientData !== undefined) item.clientData = clientData;
  return item;
}
