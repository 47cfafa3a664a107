import { type CallOptions, route, type Transport } from "./transport.js";
import type {
  CollectionPage,
  ContentBody,
  CreatedItem,
  DeletedItem,
  ItemState,
  JsonValue,
  ListQuery,
} from "./types.js";

/** One collection item, addressed by its topic (its storage key; `/` is sent as `%2F`). */
export interface ResourceItemClient<TClientData = JsonValue> {
  /**
   * GET `…/:topic`: the item's `clientData`; needs `client.state.read`. Refused for a topic literally
   * named `content`, which the `/:ref/content` route shadows (routing rule 2).
   */
  state(options?: CallOptions): Promise<ItemState<TClientData>>;
  /** GET `…/:topic/content`; `content` is `null` when the item has no content row. */
  content(options?: CallOptions): Promise<ContentBody>;
  /** PATCH `…/:topic/content`: replaces the body; needs `client.content.update`. */
  patchContent(content: string, options?: CallOptions): Promise<{ topic: string }>;
  /** DELETE `…/:topic`; needs `client.content.delete`. A missing topic still answers 200 (`deleted: false`). */
  delete(options?: CallOptions): Promise<DeletedItem>;
}

/** The client-visible side of one resource or collection of a session (`/sessions/:id/resources/:ref`). */
export interface ResourceClient<TClientData = JsonValue> {
  /** GET `…/:ref/content`: a single resource's content; needs `client.content.read`. */
  content(options?: CallOptions): Promise<ContentBody>;
  /** GET `…/:ref`: one page of a collection; needs `client.state.read`. */
  list(query?: ListQuery, options?: CallOptions): Promise<CollectionPage<TClientData>>;
  /** One item by topic. */
  item(topic: string): ResourceItemClient<TClientData>;
  /** POST `…/:ref`: 201 with the created item; 409 `topic-exists` when the topic is taken. */
  create(body: { topic: string; content?: string }, options?: CallOptions): Promise<CreatedItem<TClientData>>;
}

function checkedTopic(topic: unknown): string {
  if (typeof topic !== "string" || topic === "") {
    throw new TypeError(
      `A topic must be a non-empty string (got ${JSON.stringify(topic) ?? String(topic)}).`,
    );
  }
  return topic;
}

export function createResourceClient<TClientData>(
  transport: Transport,
  sessionId: string,
  ref: string,
): ResourceClient<TClientData> {
  const base = route`/sessions/${sessionId}/resources/${ref}`;
  return {
    content: (options) => transport.json<ContentBody>("GET", `${base}/content`, { call: options }),
    list: (query = {}, options) => {
      const { limit, offset, topicPrefix, cursor } = query;
      return transport.json<CollectionPage<TClientData>>("GET", base, {
        query: { limit, offset, topicPrefix, cursor },
        call: options,
      });
    },
    item: (topic) => {
      const path = `${base}${route`/${checkedTopic(topic)}`}`;
      return {
        state: async (options) => {
          if (topic === "content") {
            // GET …/:ref/content is the resource's own content route, so this would read something else.
            throw new TypeError(
              'The state of a topic named "content" is not addressable: /:ref/content shadows it.',
            );
          }
          return transport.json<ItemState<TClientData>>("GET", path, { call: options });
        },
        content: (options) => transport.json<ContentBody>("GET", `${path}/content`, { call: options }),
        patchContent: async (content, options) => {
          if (typeof content !== "string")
            throw new TypeError("patchContent takes the new content as a string.");
          return transport.json<{ topic: string }>("PATCH", `${path}/content`, {
            body: { content },
            call: options,
          });
        },
        delete: (options) => transport.json<DeletedItem>("DELETE", path, { call: options }),
      };
    },
    create: async (body, options) => {
      checkedTopic(body?.topic);
      if (body.content !== undefined && typeof body.content !== "string") {
        throw new TypeError("create takes `content` as a string.");
      }
      const payload =
        body.content === undefined ? { topic: body.topic } : { topic: body.topic, content: body.content };
      return transport.json<CreatedItem<TClientData>>("POST", base, { body: payload, call: options });
    },
  };
}
