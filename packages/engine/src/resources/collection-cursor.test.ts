import {
  defineResourceCollection,
  type FlowStores,
  type ListOptions,
  type ResourceStateRecord,
  SHARED_BUCKET,
} from "@flowrt/core";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { z } from "zod";
import {
  type ClientResourceApi,
  type CursorPagination,
  createClientResourceApi,
  type ListPage,
} from "./client-api.js";
import type { ListQuery } from "./client-input.js";
import { encodeCursor } from "./collection-cursor.js";
import { makeContext, rejection, STORE_FACTORIES } from "./testing/harness.js";

const address = { scope: "session" as const, scopeId: "s1", bucket: SHARED_BUCKET };
const schema = z.object({ title: z.string().default("") });
const client = { state: { read: true } } as const;
const items = defineResourceCollection({ pattern: "items/*", scope: "session", stateSchema: schema, client });
const things = defineResourceCollection({
  pattern: "things/[id]",
  scope: "session",
  stateSchema: schema,
  client,
});
const files = defineResourceCollection({
  pattern: "files/**",
  scope: "session",
  stateSchema: schema,
  client,
});
const notes = defineResourceCollection({
  pattern: "[topic]/notes",
  scope: "session",
  stateSchema: schema,
  client,
});
// A projection: its pages go the parsed way, never the stored text.
const shown = defineResourceCollection({
  pattern: "shown/*",
  scope: "session",
  stateSchema: schema,
  client: { state: { read: true }, expose: ["title"] },
});
const declarations = { items, things, files, notes, shown };

const pad = (i: number) => String(i).padStart(4, "0");

describe.each(STORE_FACTORIES)("collection pages by cursor ($name store)", (factory) => {
  let stores: FlowStores;
  let destroy: () => Promise<void>;
  beforeEach(async () => {
    ({ stores, destroy } = await factory.create());
  });
  afterEach(() => destroy());

  const open = (flowKind = "notebook") =>
    createClientResourceApi(
      makeContext(stores, { noRequest: true, flow: { kind: flowKind } }).ctx,
      declarations,
    );
  const put = async (keys: Iterable<string>) => {
    for (const key of keys) await stores.resources.putState(address, key, { title: key }, { type: "absent" });
  };
  /** Every live record of the scope, to show a refused page changed nothing (versions and access times included). */
  const everything = async (): Promise<ResourceStateRecord[]> => (await stores.resources.list(address)).items;

  /** The pages of a walk: the first by offset, the rest by each page's nextCursor, read as objects and as text. */
  async function walk(api: ClientResourceApi, ref: string, query: ListQuery) {
    const pages: ListPage[] = [];
    let next: ListQuery = query;
    for (;;) {
      const page = await api.listItems(ref, next);
      // The JSON-text fast path answers the same page, byte for byte.
      expect(await api.listItemsJson(ref, next)).toBe(JSON.stringify(page));
      pages.push(page);
      const { nextCursor } = page.pagination as { nextCursor: string | null };
      if (nextCursor === null) return pages;
      if (pages.length > 2000) throw new Error("the walk does not end");
      const { offset: _offset, ...rest } = query;
      next = { ...rest, cursor: nextCursor };
    }
  }
  const topicsOf = (pages: ListPage[]) => pages.flatMap((page) => page.items.map((item) => item.topic));

  it("walks a 1,000-item collection exactly once, in key order, asking the store for the keys after each page", async () => {
    const all = Array.from({ length: 1000 }, (_, i) => `items/${pad(i)}`);
    // Written in reverse key order, 50 at a time (the filesystem store is slow one by one).
    const reversed = [...all].reverse();
    for (let i = 0; i < reversed.length; i += 50)
      await Promise.all(reversed.slice(i, i + 50).map((key) => put([key])));
    const api = open();
    const lists: ListOptions[] = [];
    const list = stores.resources.list.bind(stores.resources);
    vi.spyOn(stores.resources, "list").mockImplementation((at, options) => {
      lists.push(options ?? {});
      return list(at, options);
    });
    const pages = await walk(api, "items", { limit: 37 });
    expect(topicsOf(pages)).toEqual(all);
    expect(pages).toHaveLength(Math.ceil(1000 / 37));
    for (const [i, page] of pages.entries()) {
      const last = i === pages.length - 1;
      expect(page.items.map((item) => (item.clientData as { title: string }).title)).toEqual(
        all.slice(i * 37, i * 37 + 37),
      );
      if (i === 0) {
        expect(page.pagination).toEqual({
          offset: 0,
          limit: 37,
          total: 1000,
          hasMore: true,
          nextOffset: 37,
          nextCursor: expect.any(String),
        });
      } else {
        expect(page.pagination).toEqual({
          limit: 37,
          cursor: expect.any(String),
          nextCursor: last ? null : expect.any(String),
          total: 1000,
          hasMore: !last,
        });
        // Each page is asked with the cursor the page before it answered.
        const before = pages[i - 1]!.pagination as { nextCursor: string };
        expect((page.pagination as CursorPagination).cursor).toBe(before.nextCursor);
      }
    }
    // A page by cursor is a keyset listing of the store (a `leaf` listing from a key, one more than the page),
    // never an offset or a read of the whole collection.
    const byCursor = lists.filter((options) => options.after !== undefined);
    expect(byCursor.length).toBeGreaterThan(0);
    for (const options of byCursor) {
      expect(options).toMatchObject({ prefix: "items/", leaf: true, limit: 38 });
      expect(options.offset).toBeUndefined();
    }
    expect(lists.every((options) => options.limit !== undefined)).toBe(true);
  }, 60_000);

  it("an offset page's nextCursor continues from where it ends; a collection with a projection pages the same way", async () => {
    await put(Array.from({ length: 30 }, (_, i) => `items/${pad(i)}`));
    await put(Array.from({ length: 30 }, (_, i) => `shown/${pad(i)}`));
    const api = open();
    for (const ref of ["items", "shown"]) {
      const deep = await api.listItems(ref, { offset: 20, limit: 4 });
      expect(deep.items.map((item) => item.topic)).toEqual([20, 21, 22, 23].map((i) => `${ref}/${pad(i)}`));
      const { nextCursor } = deep.pagination as { nextCursor: string };
      const rest = await walk(api, ref, { cursor: nextCursor, limit: 4 });
      expect(topicsOf(rest)).toEqual([24, 25, 26, 27, 28, 29].map((i) => `${ref}/${pad(i)}`));
      expect(rest.at(-1)!.pagination).toMatchObject({ nextCursor: null, hasMore: false, total: 30 });
    }
  });

  for (const [ref, base] of [
    ["items", "items"],
    ["things", "things"],
  ] as const) {
    it(`${ref}: a leaf collection's cursor pages leave out deeper keys and the key equal to the prefix`, async () => {
      const names = Array.from({ length: 12 }, (_, i) => String.fromCharCode(97 + i)); // a … l
      const all = names.map((n) => `${base}/${n}`);
      await put([
        ...all,
        `${base}/`,
        `${base}/a/x`,
        `${base}/c/y/z`,
        `${base}/l/`,
        base,
        `${base}X/1`,
        "other/a",
      ]);
      const api = open();
      for (const limit of [1, 2, 5, 11, 12, 50]) {
        const pages = await walk(api, ref, { limit });
        expect(topicsOf(pages)).toEqual(all);
        for (const page of pages) expect(page.pagination).toMatchObject({ total: 12 });
        expect(pages.at(-1)!.pagination).toMatchObject({ hasMore: false, nextCursor: null });
        expect(pages.slice(0, -1).every((page) => page.items.length === limit)).toBe(true);
      }
    });
  }

  it("topicPrefix with cursor: the walk stays under the prefix, and the cursor serves only that prefix", async () => {
    const under = Array.from({ length: 25 }, (_, i) => `items/a${pad(i)}`);
    await put([...under, "items/b0001", "items/a0003/deeper", "items/"]);
    const api = open();
    const pages = await walk(api, "items", { topicPrefix: "items/a", limit: 4 });
    expect(topicsOf(pages)).toEqual(under);
    for (const page of pages) expect(page.pagination).toMatchObject({ total: 25 });
    // `topicPrefix` is the full key; the collection's literal prefix, or a prefix of it, is the whole collection.
    const first = await api.listItems("items", { topicPrefix: "items/a", limit: 4 });
    const cursor = (first.pagination as { nextCursor: string }).nextCursor;
    const whole = await api.listItems("items", { topicPrefix: "it", limit: 30 });
    expect(whole.items).toHaveLength(26);
    // A cursor made under `items/a` is for pages under `items/a` only.
    for (const topicPrefix of [undefined, "items/", "items/a0", "it"]) {
      const query: ListQuery = topicPrefix === undefined ? { cursor } : { cursor, topicPrefix };
      const refused = await rejection(api.listItems("items", query));
      expect(refused.code).toBe("invalid-pagination");
      expect(refused.details).toEqual({ field: "cursor" });
    }
  });

  it("deep and variable-segment patterns walk by cursor too", async () => {
    const deep = ["files/a", "files/a/b", "files/a/b/c", "files/b", "files/z/y"];
    const noted = ["a/notes", "b/notes", "c/notes", "d/notes"];
    await put([...deep, ...noted, "a/other", "files", "b/notes/x"]);
    const api = open();
    for (const limit of [1, 2, 3, 10]) {
      expect(topicsOf(await walk(api, "files", { limit }))).toEqual(deep);
      expect(topicsOf(await walk(api, "notes", { limit }))).toEqual(noted);
    }
    expect(topicsOf(await walk(api, "files", { topicPrefix: "files/a/", limit: 1 }))).toEqual([
      "files/a/b",
      "files/a/b/c",
    ]);
  });

  it("a page by cursor of a collection emptied meanwhile is an empty last page, total 0", async () => {
    await put(["items/a", "items/b", "items/c"]);
    const api = open();
    const first = await api.listItems("items", { limit: 1 });
    const cursor = (first.pagination as { nextCursor: string }).nextCursor;
    for (const key of ["items/a", "items/b", "items/c"])
      await stores.resources.deleteState(address, key, { type: "any" });
    expect(await api.listItems("items", { cursor, limit: 1 })).toEqual({
      items: [],
      pagination: { limit: 1, cursor, nextCursor: null, total: 0, hasMore: false },
    });
  });

  it("a malformed or foreign cursor, or a cursor with an offset, is invalid-pagination and changes nothing", async () => {
    await put(Array.from({ length: 5 }, (_, i) => `items/${pad(i)}`));
    await put(["things/a", "things/b"]);
    const api = open();
    const first = await api.listItems("items", { limit: 2 });
    const cursor = (first.pagination as { nextCursor: string }).nextCursor;
    const thingsCursor = (
      (await api.listItems("things", { limit: 1 })).pagination as {
        nextCursor: string;
      }
    ).nextCursor;
    const otherFlowCursor = (
      (await open("other-kind").listItems("items", { limit: 2 })).pagination as { nextCursor: string }
    ).nextCursor;
    const b64 = (text: string) => Buffer.from(text).toString("base64url");
    const target = { flowKind: "notebook", ref: "items", prefix: "items/" };
    const cases: [string, ListQuery, string][] = [
      ["empty", { cursor: "" }, "cursor"],
      ["not base64url", { cursor: "not a cursor!" }, "cursor"],
      ["padded base64", { cursor: `${cursor}=` }, "cursor"],
      ["not JSON", { cursor: b64("items/0001") }, "cursor"],
      ["JSON of another shape", { cursor: b64('["items/0001"]') }, "cursor"],
      [
        "another version",
        { cursor: b64('{"v":2,"f":"notebook","r":"items","p":"items/","k":"items/0001"}') },
        "cursor",
      ],
      ["not a string", { cursor: 5 as never }, "cursor"],
      ["another collection's", { cursor: thingsCursor }, "cursor"],
      ["another flow's", { cursor: otherFlowCursor }, "cursor"],
      ["a key outside the prefix", { cursor: encodeCursor(target, "other/0001") }, "cursor"],
      ["with an offset", { cursor, offset: 2 }, "offset"],
      ["with offset 0", { cursor, offset: "0" }, "offset"],
    ];
    const before = await everything();
    for (const [what, query, field] of cases) {
      for (const list of [() => api.listItems("items", query), () => api.listItemsJson("items", query)]) {
        const refused = await rejection(list());
        expect(refused.code, what).toBe("invalid-pagination");
        expect(refused.details, what).toEqual({ field });
      }
    }
    expect(await everything()).toEqual(before);
    // The genuine cursor still serves its page.
    expect((await api.listItems("items", { cursor, limit: 2 })).items.map((item) => item.topic)).toEqual([
      "items/0002",
      "items/0003",
    ]);
  });

  it("the last page by offset answers nextOffset = offset + the items it holds, hasMore false, no cursor", async () => {
    await put(["items/a", "items/b", "items/c"]);
    const api = open();
    expect((await api.listItems("items", { offset: 1, limit: 5 })).pagination).toEqual({
      offset: 1,
      limit: 5,
      total: 3,
      hasMore: false,
      nextOffset: 3,
      nextCursor: null,
    });
    // Past the end: nothing returned, so nextOffset is the offset asked for.
    expect((await api.listItems("items", { offset: 9 })).pagination).toMatchObject({
      offset: 9,
      total: 3,
      hasMore: false,
      nextOffset: 9,
      nextCursor: null,
    });
    // A topicPrefix outside the collection lists nothing.
    expect((await api.listItems("items", { topicPrefix: "zz", offset: 4 })).pagination).toEqual({
      offset: 4,
      limit: 50,
      total: 0,
      hasMore: false,
      nextOffset: 4,
      nextCursor: null,
    });
  });
});
