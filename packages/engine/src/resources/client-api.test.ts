import {
  defineExternalCollection,
  defineResource,
  defineResourceCollection,
  FlowError,
  type FlowStores,
  SHARED_BUCKET,
} from "@flowrt/core";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { problemFor } from "../http/problem.js";
import { createClientResourceApi } from "./client-api.js";
import { makeContext, rejection, STORE_FACTORIES } from "./testing/harness.js";

const address = { scope: "session" as const, scopeId: "s1", bucket: SHARED_BUCKET };
const schema = z.object({ title: z.string().default("untitled"), secret: z.string().default("s") });
const readme = defineResource({ scope: "session", content: "read me", client: { content: { read: true } } });
const closed = defineResource({ scope: "session", content: "x", client: { expose: [] } });
const invisible = defineResource({ scope: "session", content: "x" });
const files = defineResourceCollection({
  pattern: "files/**",
  scope: "session",
  stateSchema: schema,
  client: { state: { read: true }, content: { read: true, create: true, update: true, delete: true } },
});
const readOnly = defineResourceCollection({
  pattern: "ro/*",
  scope: "session",
  stateSchema: schema,
  client: { content: { read: true } },
});
const strict = defineResourceCollection({
  pattern: "strict/*",
  scope: "session",
  stateSchema: z.object({ owner: z.string() }),
  client: { content: { create: true } },
});
const templated = defineResourceCollection({
  pattern: "t/*",
  scope: "session",
  stateSchema: schema,
  contentTemplate: "Title: {{ title }}",
  client: { content: { read: true, create: true } },
});
const catalog = defineExternalCollection({
  pattern: "cat/*",
  scope: "session",
  stateSchema: z.object({ title: z.string() }),
  read: ({ key }) => (key === "a" ? { title: "A" } : null),
  search: ({ query }) => ({
    hits: [{ key: "a", state: { title: "A" } }],
    ...(query.cursor ? {} : { nextCursor: "c2" }),
  }),
  client: { state: { read: true } },
});
const declarations = { readme, closed, invisible, files, readOnly, strict, templated, catalog };

describe.each(STORE_FACTORIES)("client resource API ($name store)", (factory) => {
  let stores: FlowStores;
  let destroy: () => Promise<void>;
  beforeEach(async () => {
    ({ stores, destroy } = await factory.create());
  });
  afterEach(() => destroy());

  const open = () => {
    const t = makeContext(stores, { noRequest: true });
    return { ...t, api: createClientResourceApi(t.ctx, declarations) };
  };
  const stored = async (key: string) => (await stores.resources.getState(address, key))?.state ?? null;

  it("rule 3: a resource without client config (or unknown) is resource-not-found", async () => {
    const { api } = open();
    expect((await rejection(api.readContent("invisible"))).code).toBe("resource-not-found");
    expect((await rejection(api.listItems("nope"))).code).toBe("resource-not-found");
    expect((await rejection(api.readContent("constructor"))).code).toBe("resource-not-found");
  });

  it("rule 4: an undeclared operation is operation-not-permitted", async () => {
    const { api } = open();
    expect((await rejection(api.readContent("closed"))).code).toBe("operation-not-permitted");
    expect((await rejection(api.listItems("readOnly"))).code).toBe("operation-not-permitted");
    expect((await rejection(api.readItem("readOnly", "x"))).code).toBe("operation-not-permitted");
    expect((await rejection(api.createItem("readOnly", { topic: "x" }))).code).toBe(
      "operation-not-permitted",
    );
    expect((await rejection(api.patchItemContent("readOnly", "x", { content: "c" }))).code).toBe(
      "operation-not-permitted",
    );
    expect((await rejection(api.deleteItem("readOnly", "x"))).code).toBe("operation-not-permitted");
    expect(await stored("ro/x")).toBeNull();
  });

  it("single resource content reads the rendered content", async () => {
    expect(await open().api.readContent("readme")).toEqual({ content: "read me" });
  });

  it("rules 5 and 6: POST seeds state from stateSchema parsed against {}, writes state then content", async () => {
    const { api } = open();
    expect(await api.createItem("files", { topic: "docs/a.md", content: "body" })).toEqual({
      topic: "files/docs/a.md",
      clientData: { title: "untitled", secret: "s" },
    });
    expect(await stored("files/docs/a.md")).toEqual({ title: "untitled", secret: "s" });
    expect(await stores.resources.getContent(address, "files/docs/a.md")).toBe("body");
    expect(await api.readItemContent("files", "files/docs/a.md")).toEqual({ content: "body" });
    expect(await api.readItem("files", "docs/a.md")).toEqual({
      topic: "files/docs/a.md",
      clientData: { title: "untitled", secret: "s" },
    });
  });

  it("rule 6: the seed is stateSchema's output, stored as it is (a transform runs once)", async () => {
    const shouted = defineResourceCollection({
      pattern: "shout/*",
      scope: "session",
      stateSchema: z.object({
        title: z
          .string()
          .default("hi")
          .transform((s) => `${s}!`),
      }),
      client: { state: { read: true }, content: { create: true } },
    });
    const t = makeContext(stores, { noRequest: true });
    const api = createClientResourceApi(t.ctx, { shouted });
    expect(await api.createItem("shouted", { topic: "a" })).toEqual({
      topic: "shout/a",
      clientData: { title: "hi!" },
    });
    expect(await stored("shout/a")).toEqual({ title: "hi!" });
  });

  it("rule 6: a seed that does not yield a valid state is invalid-seed-state naming the field; nothing stored", async () => {
    const { api } = open();
    const error = await rejection(api.createItem("strict", { topic: "x" }));
    expect(error.code).toBe("invalid-seed-state");
    expect(error.details).toMatchObject({ field: "owner" });
    expect(error.message).toContain('"owner"');
    expect(await stored("strict/x")).toBeNull();
  });

  it.each([
    ["a Date", "when", z.date().default(() => new Date(0)), "Date"],
    ["NaN", "score", z.number().default(Number.NaN), "NaN"],
    ["a bigint", "big", z.bigint().default(1n), "a bigint"],
    [
      "a nested Date",
      "meta.0.at",
      z.array(z.object({ at: z.date() })).default([{ at: new Date(0) }]),
      "Date",
    ],
  ])(
    "rule 6: a seed whose defaults yield %s is invalid-seed-state (400) naming the field; nothing stored or emitted",
    async (_what, field, fieldSchema, found) => {
      const top = field.split(".")[0]!;
      const hook = vi.fn();
      const odd = defineResourceCollection({
        pattern: "odd/*",
        scope: "session",
        stateSchema: z.object({ title: z.string().default("t"), [top]: fieldSchema }),
        onInstanceCreated: hook,
        client: { state: { read: true }, content: { read: true, create: true } },
      });
      const t = makeContext(stores);
      const api = createClientResourceApi(t.ctx, { odd });
      const error = await rejection(api.createItem("odd", { topic: "x", content: "body" }));
      expect(error.code).toBe("invalid-seed-state");
      expect(error.details).toMatchObject({ resource: "odd", field });
      expect(error.message).toContain(`yields ${found} at field "${field}", which is not JSON`);
      expect(problemFor(error)).toMatchObject({ status: 400, code: "invalid-seed-state", field });
      expect(await stored("odd/x")).toBeNull();
      expect(await stores.resources.getContent(address, "odd/x")).toBeNull();
      expect(t.events).toEqual([]);
      expect(t.reactions).toEqual([]);
      expect(hook).not.toHaveBeenCalled();
    },
  );

  it("rule 7: POST on an existing topic is topic-exists; of two simultaneous creates one wins and the other writes no content", async () => {
    const { api } = open();
    const results = await Promise.allSettled([
      api.createItem("files", { topic: "race", content: "first" }),
      open().api.createItem("files", { topic: "race", content: "second" }),
    ]);
    const won = results.filter((r) => r.status === "fulfilled");
    const lost = results.filter((r) => r.status === "rejected") as PromiseRejectedResult[];
    expect(won).toHaveLength(1);
    expect(lost.map((r) => r.reason.code)).toEqual(["topic-exists"]);
    const winner = results[0]?.status === "fulfilled" ? "first" : "second";
    expect(await stores.resources.getContent(address, "files/race")).toBe(winner);
  });

  it("rule 8: a failed content write leaves the item without content; retry gets 409, PATCH repairs it", async () => {
    const { api } = open();
    const put = vi.spyOn(stores.resources, "putContent").mockRejectedValueOnce(new Error("disk full"));
    expect((await rejection(api.createItem("files", { topic: "broken", content: "x" }))).code).toBe(
      "content-write-failed",
    );
    put.mockRestore();
    expect(await stored("files/broken")).not.toBeNull();
    expect(await api.readItemContent("files", "broken")).toEqual({ content: null });
    expect((await rejection(api.createItem("files", { topic: "broken", content: "x" }))).code).toBe(
      "topic-exists",
    );
    expect(await api.patchItemContent("files", "broken", { content: "fixed" })).toEqual({
      topic: "files/broken",
    });
    expect(await api.readItemContent("files", "broken")).toEqual({ content: "fixed" });
  });

  it("a content the store refuses as input is the caller's invalid-request, and the item is taken back", async () => {
    const { api } = open();
    const refusal = new FlowError("invalid-request", "store: a text value holds U+0000 (NUL).");
    const put = vi.spyOn(stores.resources, "putContent").mockRejectedValueOnce(refusal);
    expect(await rejection(api.createItem("files", { topic: "nul", content: "a\u0000" }))).toBe(refusal);
    put.mockRestore();
    expect(await stored("files/nul")).toBeNull();
    expect(await stores.resources.getContent(address, "files/nul")).toBeNull();
    // Nothing is left in the way: the same topic can be created.
    expect(await api.createItem("files", { topic: "nul", content: "fine" })).toMatchObject({
      topic: "files/nul",
    });
  });

  it("a topic no URL could name is refused at create: a lone surrogate, or longer than 1024 characters", async () => {
    const { api } = open();
    for (const topic of ["a\ud800", "\udc00", "x".repeat(1025)]) {
      const error = await rejection(api.createItem("files", { topic, content: "c" }));
      expect(problemFor(error)).toMatchObject({ status: 400, code: "invalid-request", field: "topic" });
    }
    expect(await stores.resources.count(address, "files/")).toBe(0);
    expect(await api.createItem("files", { topic: "x".repeat(1024) })).toMatchObject({
      topic: `files/${"x".repeat(1024)}`,
    });
    expect(await api.createItem("files", { topic: "emoji-\ud83d\ude00" })).toMatchObject({
      topic: "files/emoji-\ud83d\ude00",
    });
  });

  it("a PATCH whose item is deleted while its body is being stored takes the body back (no orphan for a later create)", async () => {
    const { api } = open();
    await api.createItem("files", { topic: "x", content: "first" });
    const put = stores.resources.putContent.bind(stores.resources);
    vi.spyOn(stores.resources, "putContent").mockImplementationOnce(async (at, key, content) => {
      await api.deleteItem("files", "x"); // lands between the PATCH's check and its write
      return put(at, key, content);
    });
    expect((await rejection(api.patchItemContent("files", "x", { content: "stale" }))).code).toBe(
      "instance-not-found",
    );
    expect(await stores.resources.getContent(address, "files/x")).toBeNull();
    await api.createItem("files", { topic: "x" });
    expect(await api.readItemContent("files", "x")).toEqual({ content: null });
  });

  it("rule 9: with contentTemplate content is rendered from state and never read from the row", async () => {
    const { api } = open();
    await api.createItem("templated", { topic: "a", content: "raw body" });
    expect(await stores.resources.getContent(address, "t/a")).toBe("raw body");
    expect(await api.readItemContent("templated", "a")).toEqual({ content: "Title: untitled" });
  });

  it("rule 10: DELETE is 200 for a missing topic and delete-conflict when the state changed mid-delete (item kept)", async () => {
    const { api } = open();
    expect(await api.deleteItem("files", "ghost")).toEqual({ topic: "files/ghost", deleted: false });
    await api.createItem("files", { topic: "a", content: "keep" });
    const realDelete = stores.resources.deleteState.bind(stores.resources);
    const spy = vi
      .spyOn(stores.resources, "deleteState")
      .mockImplementationOnce(async (addr, key, condition) => {
        await stores.resources.putState(addr, key, { title: "changed", secret: "s" }, { type: "any" });
        return realDelete(addr, key, condition);
      });
    const error = await rejection(api.deleteItem("files", "a"));
    spy.mockRestore();
    expect(error.code).toBe("delete-conflict");
    expect(await stored("files/a")).toEqual({ title: "changed", secret: "s" });
    expect(await stores.resources.getContent(address, "files/a")).toBe("keep");
    expect(await api.deleteItem("files", "a")).toEqual({ topic: "files/a", deleted: true });
    expect(await stored("files/a")).toBeNull();
  });

  it("list pages: limit default 50 and max 200, offset, topicPrefix on the full storage key, pagination fields", async () => {
    const { api } = open();
    for (const k of ["p/1/a", "p/1/b", "p/2/a", "q"]) await api.createItem("files", { topic: k });
    expect(await api.listItems("files", { limit: "2", topicPrefix: "files/p/" })).toEqual({
      items: [
        { topic: "files/p/1/a", clientData: { title: "untitled", secret: "s" } },
        { topic: "files/p/1/b", clientData: { title: "untitled", secret: "s" } },
      ],
      pagination: {
        offset: 0,
        limit: 2,
        total: 3,
        hasMore: true,
        nextOffset: 2,
        nextCursor: expect.any(String),
      },
    });
    // The last page's nextOffset is where it ends (offset + items), not null; hasMore says it is the last.
    const last = await api.listItems("files", { limit: 2, offset: 2, topicPrefix: "files/p/" });
    expect(last.pagination).toEqual({
      offset: 2,
      limit: 2,
      total: 3,
      hasMore: false,
      nextOffset: 3,
      nextCursor: null,
    });
    expect((await api.listItems("files")).pagination).toMatchObject({ limit: 50, total: 4 });
    expect((await api.listItems("files", { limit: 1000 })).pagination).toMatchObject({ limit: 200 });
    for (const limit of ["x", "-1", "0", "1.5"]) {
      const refused = await rejection(api.listItems("files", { limit }));
      expect(refused.code).toBe("invalid-pagination");
      // Every refusal of a limit says what a limit is.
      expect(refused.message).toBe(`limit must be an integer of at least 1 (got ${JSON.stringify(limit)}).`);
    }
    expect((await rejection(api.listItems("files", { offset: "-1" }))).message).toBe(
      'offset must be a non-negative integer (got "-1").',
    );
  });

  it("external collections list through search with cursor and nextCursor; no writes", async () => {
    const { api } = open();
    expect(await api.listItems("catalog", { limit: 10 })).toEqual({
      items: [{ topic: "cat/a", clientData: { title: "A" } }],
      pagination: { limit: 10, cursor: null, nextCursor: "c2" },
    });
    expect((await api.listItems("catalog", { cursor: "c2" })).pagination).toEqual({
      limit: 50,
      cursor: "c2",
      nextCursor: null,
    });
    expect(await api.readItem("catalog", "a")).toEqual({ topic: "cat/a", clientData: { title: "A" } });
    expect((await rejection(api.deleteItem("catalog", "a"))).code).toBe("operation-not-permitted");
  });

  it("malformed bodies are invalid-request; missing items are instance-not-found", async () => {
    const { api } = open();
    expect((await rejection(api.createItem("files", { content: "x" }))).code).toBe("invalid-request");
    expect((await rejection(api.createItem("files", null))).code).toBe("invalid-request");
    expect((await rejection(api.patchItemContent("files", "a", { content: 1 }))).code).toBe(
      "invalid-request",
    );
    expect((await rejection(api.patchItemContent("files", "a", { content: "x" }))).code).toBe(
      "instance-not-found",
    );
    expect((await rejection(api.readItem("files", "a"))).code).toBe("instance-not-found");
  });
});

describe.each(STORE_FACTORIES)("client resource API as JSON text ($name store)", (factory) => {
  let stores: FlowStores;
  let destroy: () => Promise<void>;
  beforeEach(async () => {
    ({ stores, destroy } = await factory.create());
  });
  afterEach(() => destroy());

  const items = defineResourceCollection({
    pattern: "items/*",
    scope: "session",
    stateSchema: schema,
    client: { state: { read: true }, content: { create: true } },
  });
  const exposed = defineResourceCollection({
    pattern: "pub/*",
    scope: "session",
    stateSchema: schema,
    client: { state: { read: true }, expose: ["title"] },
  });
  const all = { ...declarations, items, exposed };
  const api = () => createClientResourceApi(makeContext(stores, { noRequest: true }).ctx, all);

  it("listItemsJson and readItemJson are the bytes JSON.stringify makes of listItems and readItem", async () => {
    const states: Record<string, { title: string; secret: string }> = {
      "items/b": { title: 'quote " and \\ and \u{1F600}', secret: "1" },
      "items/a": { title: "a", secret: "2" },
      // Keys JSON must escape (quote, backslash, a control character, a surrogate pair).
      'items/q"\\\u0001\u{1F600}': { title: "escaped key", secret: "7" },
      // The collection's folder key and a deeper key share the prefix but are not items.
      "items/": { title: "folder", secret: "3" },
      "items/a/deep": { title: "deep", secret: "4" },
      "files/x/y.md": { title: "y", secret: "5" },
      "files/x.md": { title: "x", secret: "6" },
      "pub/p": { title: "p", secret: "hidden" },
    };
    for (const [key, state] of Object.entries(states))
      await stores.resources.putState(address, key, state, { type: "absent" });
    const queries = [{}, { limit: 1 }, { offset: 1, limit: "1" }, { offset: 5 }, { topicPrefix: "items/b" }];
    for (const ref of ["items", "files", "exposed", "catalog"]) {
      for (const query of queries) {
        const text = await api().listItemsJson(ref, query);
        expect(text).toBe(JSON.stringify(await api().listItems(ref, query)));
      }
    }
    for (const [ref, topic] of [
      ["items", "a"],
      ["items", "items/b"],
      ["items", 'q"\\\u0001\u{1F600}'],
      ["files", "x/y.md"],
      ["exposed", "p"],
      ["catalog", "a"],
    ] as const) {
      expect(await api().readItemJson(ref, topic)).toBe(JSON.stringify(await api().readItem(ref, topic)));
    }
    expect(JSON.parse(await api().readItemJson("exposed", "p"))).toEqual({
      topic: "pub/p",
      clientData: { title: "p" },
    });
  });

  it("the JSON text reads refuse exactly as the object reads do", async () => {
    for (const [run, code] of [
      [(a: ReturnType<typeof api>) => a.readItemJson("items", "missing"), "instance-not-found"],
      [(a: ReturnType<typeof api>) => a.readItemJson("readOnly", "x"), "operation-not-permitted"],
      [(a: ReturnType<typeof api>) => a.readItemJson("nope", "x"), "resource-not-found"],
      [(a: ReturnType<typeof api>) => a.listItemsJson("items", { limit: "x" }), "invalid-pagination"],
      [(a: ReturnType<typeof api>) => a.listItemsJson("readOnly"), "operation-not-permitted"],
    ] as const) {
      expect((await rejection(run(api()))).code).toBe(code);
    }
  });

  it.runIf(factory.name === "memory")(
    "a page of whole states is laid out from the stored text, never parsed",
    async () => {
      await stores.resources.putState(address, "items/a", { title: "a", secret: "s" }, { type: "absent" });
      const list = vi.spyOn(stores.resources, "list");
      const getState = vi.spyOn(stores.resources, "getState");
      const listText = vi.spyOn(stores.resources, "listText");
      const getStateText = vi.spyOn(stores.resources, "getStateText");
      await api().listItemsJson("items", { offset: 0 });
      await api().readItemJson("items", "a");
      expect(list).not.toHaveBeenCalled();
      expect(getState).not.toHaveBeenCalled();
      expect(listText).toHaveBeenCalledOnce();
      expect(getStateText).toHaveBeenCalledOnce();
    },
  );
});
