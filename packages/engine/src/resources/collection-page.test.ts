import { defineResourceCollection, type FlowStores, type ListOptions, SHARED_BUCKET } from "@flowrt/core";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { createClientResourceApi } from "./client-api.js";
import { createResourceScope } from "./resource-scope.js";
import { makeContext, STORE_FACTORIES } from "./testing/harness.js";

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
const declarations = { items, things };

/** The `total` of an offset page (external collections page by cursor and have none). */
const totalOf = (pagination: object) => (pagination as { total?: number }).total;

const names = Array.from({ length: 12 }, (_, i) => String.fromCharCode(97 + i)); // a … l
/** Keys under the collections' prefixes that are not their items: deeper ones, and the prefix itself. */
const strangers = (base: string, withPrefixKey: boolean) => [
  `${base}/a/x`,
  `${base}/c/y/z`,
  `${base}/l/`,
  base,
  `${base}X/1`,
  ...(withPrefixKey ? [`${base}/`] : []),
];

describe.each(STORE_FACTORIES)("one-level collection pages ($name store)", (factory) => {
  let stores: FlowStores;
  let destroy: () => Promise<void>;
  beforeEach(async () => {
    ({ stores, destroy } = await factory.create());
  });
  afterEach(() => destroy());

  const open = () => ({
    api: createClientResourceApi(makeContext(stores, { noRequest: true }).ctx, declarations),
  });
  const seed = async (base: string, withPrefixKey: boolean) => {
    for (const key of [...names.map((n) => `${base}/${n}`), ...strangers(base, withPrefixKey)])
      await stores.resources.putState(address, key, { title: key }, { type: "absent" });
  };

  for (const [ref, base] of [
    ["items", "items"],
    ["things", "things"],
  ] as const) {
    for (const withPrefixKey of [false, true]) {
      it(`${ref}: every offset and limit pages exactly the items, total counting only them (${withPrefixKey ? "with" : "without"} a key equal to the prefix)`, async () => {
        await seed(base, withPrefixKey);
        const { api } = open();
        const all = names.map((n) => `${base}/${n}`);
        for (let offset = 0; offset <= 13; offset++) {
          for (const limit of [1, 2, 5, 50]) {
            const { items: listed, pagination } = await api.listItems(ref, { offset, limit });
            const expected = all.slice(offset, offset + limit);
            expect(listed.map((item) => item.topic)).toEqual(expected);
            expect(listed.map((item) => (item.clientData as { title: string }).title)).toEqual(expected);
            expect(pagination).toMatchObject({
              offset,
              limit,
              total: 12,
              hasMore: offset + expected.length < 12,
            });
          }
        }
        const under = async (topicPrefix: string) => {
          const { items: listed, pagination } = await api.listItems(ref, { topicPrefix });
          return { topics: listed.map((item) => item.topic), total: totalOf(pagination) };
        };
        expect(await under(`${base}/a`)).toEqual({ topics: [`${base}/a`], total: 1 });
        expect(await under(`${base}/a/`)).toEqual({ topics: [], total: 0 });
        expect(await under(`${base}/`)).toEqual({ topics: all, total: 12 });
        expect(await under(base.slice(0, 2))).toEqual({ topics: all, total: 12 });
      });
    }
  }

  it("a * collection's page and count are paged and counted by the store, never read whole", async () => {
    await seed("items", true);
    const t = makeContext(stores, { noRequest: true });
    const api = createClientResourceApi(t.ctx, declarations);
    const lists: ListOptions[] = [];
    const list = stores.resources.list.bind(stores.resources);
    vi.spyOn(stores.resources, "list").mockImplementation((at, options) => {
      lists.push(options ?? {});
      return list(at, options);
    });
    const count = vi.spyOn(stores.resources, "count");

    expect((await api.listItems("items", { offset: 4, limit: 3 })).items.map((i) => i.topic)).toEqual([
      "items/e",
      "items/f",
      "items/g",
    ]);
    expect(totalOf((await api.listItems("items", { limit: 2 })).pagination)).toBe(12);
    expect(lists.length).toBeGreaterThan(0);
    for (const options of lists) expect(options).toMatchObject({ leaf: true, limit: expect.any(Number) });

    // A scope reads nothing until a handle call; count is one store count and one point read.
    const scope = createResourceScope(makeContext(stores).ctx, { items });
    lists.length = 0;
    expect(await (scope.handles as Record<string, { count(): Promise<number> }>).items!.count()).toBe(12);
    expect(lists).toEqual([]);
    expect(count).toHaveBeenCalledWith(address, "items/", { leaf: true });
  });
});
