import { defineExternalCollection, type FlowStores } from "@flowrt/core";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { createResourceScope } from "./resource-scope.js";
import { makeContext, rejection, STORE_FACTORIES } from "./testing/harness.js";

const records: Record<string, unknown> = { a: { title: "A" }, b: { title: "B" }, bad: { title: 42 } };

function makeCatalog() {
  const calls = { read: [] as unknown[], search: [] as unknown[] };
  const catalog = defineExternalCollection({
    pattern: "catalog/*",
    scope: "user",
    stateSchema: z.object({ title: z.string() }),
    contentTemplate: "# {{ title }}",
    read: async ({ key, ctx }) => {
      calls.read.push({ key, ctx });
      await new Promise((r) => setTimeout(r, 1));
      return (records[key] as { title: string }) ?? null;
    },
    search: async ({ query, ctx }) => {
      calls.search.push({ query, ctx });
      const keys = Object.keys(records).filter((k) => !query.search || k.includes(query.search));
      const start = query.cursor ? Number(query.cursor) : 0;
      const limit = query.limit ?? 2;
      const page = keys.slice(start, start + limit);
      return {
        hits: page.map((key) => ({ key, state: records[key] as { title: string } })),
        ...(start + limit < keys.length ? { nextCursor: String(start + limit) } : {}),
      };
    },
  });
  return { catalog, calls };
}

describe.each(STORE_FACTORIES)("external collections ($name store)", (factory) => {
  let stores: FlowStores;
  let destroy: () => Promise<void>;
  beforeEach(async () => {
    ({ stores, destroy } = await factory.create());
  });
  afterEach(() => destroy());

  function open(catalog: unknown) {
    const t = makeContext(stores, { session: { tenantId: "t1" } });
    const scope = createResourceScope(t.ctx, { catalog: catalog as never });
    return { ...t, scope, h: scope.handles as Record<string, any> };
  }

  it("read gets a ctx derived from the request only (scope, scopeId, userId, orgId, tenantId, flowKind, signal)", async () => {
    const { catalog, calls } = makeCatalog();
    const { h, ctx } = open(catalog);
    const ref = await h.catalog.get("a");
    expect(ref.state).toEqual({ title: "A" });
    expect([ref.key, ref.path, ref.uri]).toEqual(["a", "catalog/a", "user/catalog/a"]);
    expect(calls.read[0]).toEqual({
      key: "a",
      ctx: {
        scope: "user",
        scopeId: "u1",
        userId: "u1",
        orgId: "o1",
        tenantId: "t1",
        flowKind: "notebook",
        signal: ctx.signal,
      },
    });
  });

  it("reads are memoized and de-duplicated within one request, never cached across requests", async () => {
    const { catalog, calls } = makeCatalog();
    const first = open(catalog);
    await Promise.all([
      first.h.catalog.get("a"),
      first.h.catalog.getOptional("a"),
      first.h.catalog.get("catalog/a"),
    ]);
    await first.h.catalog.get("a");
    expect(calls.read).toHaveLength(1);
    await open(catalog).h.catalog.get("a");
    expect(calls.read).toHaveLength(2);
  });

  it("a record failing stateSchema is dropped and logged; get of a missing record throws, getOptional returns null", async () => {
    const { catalog } = makeCatalog();
    const { h, logs } = open(catalog);
    expect(await h.catalog.getOptional("bad")).toBeNull();
    expect(logs.some((l) => l.level === "warn" && /fails stateSchema/.test(l.message))).toBe(true);
    expect(JSON.stringify(logs)).not.toContain("42");
    expect((await rejection(h.catalog.get("zz"))).code).toBe("instance-not-found");
    expect(await h.catalog.getOptional("zz")).toBeNull();
  });

  it("list(query) goes to search, keeps the hook's order, drops failing hits and returns nextCursor; a bare string means { search }", async () => {
    const { catalog, calls } = makeCatalog();
    const { h } = open(catalog);
    const first = await h.catalog.list({ limit: 2 });
    expect(first.items.map((i: any) => i.key)).toEqual(["a", "b"]);
    expect(first.nextCursor).toBe("2");
    const second = await h.catalog.list({ limit: 2, cursor: first.nextCursor });
    expect(second.items).toEqual([]);
    expect(second.nextCursor).toBeUndefined();
    await h.catalog.list("b");
    expect((calls.search.at(-1) as { query: unknown }).query).toEqual({ search: "b" });
  });

  it("handles are read-only: no count, no writers; refs render contentTemplate", async () => {
    const { catalog } = makeCatalog();
    const { h } = open(catalog);
    expect(h.catalog.count).toBeUndefined();
    expect(h.catalog.create).toBeUndefined();
    const ref = await h.catalog.get("b");
    expect(ref.patchState).toBeUndefined();
    expect(Object.isFrozen(ref.state)).toBe(true);
    expect(await ref.readContent()).toBe("# B");
    expect(await stores.resources.list({ scope: "user", scopeId: "u1", bucket: "shared" })).toMatchObject({
      total: 0,
    });
  });
});
